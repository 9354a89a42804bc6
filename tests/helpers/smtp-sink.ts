import { SMTPServer } from "smtp-server";

export type ReceivedMail = { to: string[]; raw: string };

/**
 * A local SMTP server on 127.0.0.1 that accepts every message (no TLS, no
 * auth) and hands it to `onMail`. The integration tests keep mails in memory;
 * the end-to-end tests file them for other processes.
 */
export async function listenSmtpSink(onMail: (mail: ReceivedMail) => void): Promise<{ port: number; close: () => Promise<void> }> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        onMail({ to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), raw: Buffer.concat(chunks).toString("utf8") });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  // A sender that dies mid-conversation (the chaos run SIGKILLs the server) resets its
  // connection: SMTPServer re-emits that on itself, and unheard it would end this process.
  server.on("error", () => {});
  const address = server.server.address();
  if (!address || typeof address === "string") throw new Error("SMTP sink: no port");
  return { port: address.port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
