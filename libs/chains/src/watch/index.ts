export * from './types';
export { ChainWatcher, type ChainWatcherOptions, type ChainWatcherStatus, type ReorgInfo } from './watcher';
export { ChainWatchStore, LeaseLostError, transferKey, type TrackedTransfer, type WatchState } from './watch-store';
