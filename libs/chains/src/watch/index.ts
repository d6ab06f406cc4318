export * from './types';
export { ChainWatcher, errorText, redactUrls, type ChainWatcherOptions, type ChainWatcherStatus, type ReorgInfo } from './watcher';
export { ChainWatchStore, LeaseLostError, transferKey, type TrackedTransfer, type WatchState } from './watch-store';
