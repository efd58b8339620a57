/**
 * The only commands the assistant may suggest: `curl` (or `open`) against this API, nothing a
 * shell would read as a second command, a redirection or an expansion outside single quotes.
 * Every suggestion of every backend passes here; a model persuaded by a file name to suggest
 * `rm` gets its suggestion dropped.
 */
export function isSafeCommand(command: string, baseUrl: string): boolean {
  if (command.length > 2000 || !/^(curl|open) /.test(command)) return false;
  const unquoted = command.replace(/'[^']*'/g, "''");
  if (/[;|&`$<>\\(){}'"\n\r]/.test(unquoted.replace(/''/g, ''))) return false;
  const urls = [...command.matchAll(/'(https?:\/\/[^']*)'/g)].map((m) => m[1]!);
  return urls.length >= 1 && urls.every((u) => u.startsWith(`${baseUrl}/api/`) && !u.includes('..'));
}
