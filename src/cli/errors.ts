/** Bad usage: a bad flag, an unreadable config, a selection that selects nothing. Exit 2, message only. */
export class UsageError extends Error {
  readonly code = 'ERR_USAGE';
  override readonly name = 'UsageError';
}
