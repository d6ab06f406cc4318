/**
 * Exchange rates for quotes (decision 0020): the RateSource port, the fixed table simulated
 * businesses quote from, and LiveRates (Coinbase Exchange's public ticker) for live ones.
 */
export * from './rate-source';
export * from './fixed-rates';
export * from './decimal-price';
export * from './coinbase-exchange';
export * from './live-rates';
