/**
 * A project's Sentry DSN: `<scheme>://<publicKey>@<host>[:<port>]/<projectNumber>`,
 * on the origin users reach this service at. The SDKs derive the ingest URL
 * from it: `<origin>/api/<projectNumber>/envelope/`.
 */
export function projectDsn(origin: string, publicKey: string, projectNumber: number): string {
  const url = new URL(origin);
  return `${url.protocol}//${publicKey}@${url.host}/${projectNumber}`;
}
