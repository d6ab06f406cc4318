import { AppConfig, ConfigError } from './config';

/**
 * What a process that could not start prints last, on stderr: for a cause the operator can fix
 * by changing the configuration, one line `configuration error: <VARIABLE> …` saying what to
 * change (as loadConfig's own refusals read); otherwise the error itself, with its stack.
 * The listen error's code (EADDRINUSE, …) stays in the line, for scripts that look for it.
 */
export function startupFailure(error: unknown, config?: Pick<AppConfig, 'host' | 'port'>): unknown {
  if (error instanceof ConfigError) return `configuration error: ${error.message}`;
  if (!(error instanceof Error)) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const at = config === undefined ? '' : ` ${config.host}:${config.port}`;
  if (error.name === 'DataDirectoryLockedError') return `configuration error: DATA_DIR: ${error.message}`;
  if (code === 'EADDRINUSE') return `configuration error: PORT: the address${at} is already in use (EADDRINUSE): stop what listens there, or set PORT to a free port.`;
  if (code === 'EACCES') return `configuration error: PORT: listening on${at} is not permitted (EACCES): use a port above 1023, or run with the right to bind it.`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EADDRNOTAVAIL') {
    return `configuration error: HOST: cannot listen on${at} (${code}): set HOST to an address of this machine (127.0.0.1, 0.0.0.0, or a name that resolves to one).`;
  }
  return error;
}
