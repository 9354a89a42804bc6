/**
 * A local SMTP server that accepts every message and files it, one JSON file
 * per message, in a folder the tests read (they run in other processes).
 */
import fs from "node:fs";
import path from "node:path";
import { SMTPServer } from "smtp-server";

export type StoredMail = { to: string[]; receivedAt: number; raw: string };

export async function startMailSink(dir: string): Promise<{ port: number; stop: () => Promise<void> }> {
  fs.mkdirSync(dir, { recursive: true });
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const mail: StoredMail = {
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          receivedAt: Date.now(),
          raw: Buffer.concat(chunks).toString("utf8"),
        };
        const name = `${String(Date.now()).padStart(15, "0")}-${String(++count).padStart(5, "0")}.json`;
        fs.writeFileSync(path.join(dir, `${name}.tmp`), JSON.stringify(mail));
        fs.renameSync(path.join(dir, `${name}.tmp`), path.join(dir, name)); // readers never see half a file
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.server.address();
  if (!address || typeof address === "string") throw new Error("mail sink: no port");
  return { port: address.port, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
