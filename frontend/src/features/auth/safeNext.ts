/** Only same-app paths: an open redirect through ?next= is refused. */
export function safeNext(raw: string | null): string {
  return raw && raw.startsWith('/') && !raw.startsWith('//') ? raw : '/programs';
}
