/**
 * A local SMTP server that accepts every message and files it, one JSON file
 * per message, in a folder the tests read (they run in other processes).
 */
import fs from "node:fs";
import path from "node:path";
import { listenSmtpSink } from "@/tests/helpers/smtp-sink";

export type StoredMail = { to: string[]; receivedAt: number; raw: string };

export async function startMailSink(dir: string): Promise<{ port: number; stop: () => Promise<void> }> {
  fs.mkdirSync(dir, { recursive: true });
  let count = 0;
  const sink = await listenSmtpSink(({ to, raw }) => {
    const mail: StoredMail = { to, receivedAt: Date.now(), raw };
    const name = `${String(Date.now()).padStart(15, "0")}-${String(++count).padStart(5, "0")}.json`;
    fs.writeFileSync(path.join(dir, `${name}.tmp`), JSON.stringify(mail));
    fs.renameSync(path.join(dir, `${name}.tmp`), path.join(dir, name)); // readers never see half a file
  });
  return { port: sink.port, stop: sink.close };
}
