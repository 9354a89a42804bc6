import net from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTcpProxy, type TcpProxy } from "@/tests/helpers/tcp-proxy";

/**
 * The test proxy itself (tests/helpers/tcp-proxy.ts), against a tiny local
 * server that echoes what it reads and lets the test write to each
 * connection it accepted.
 */

type Upstream = { port: number; accepted: net.Socket[]; received: () => string; nextConnection: () => Promise<net.Socket>; close: () => Promise<void> };

async function startUpstream(): Promise<Upstream> {
  const accepted: net.Socket[] = [];
  const waiters: ((s: net.Socket) => void)[] = [];
  let received = "";
  const server = net.createServer((socket) => {
    socket.on("error", () => {});
    accepted.push(socket);
    socket.on("data", (d) => {
      received += d.toString();
      socket.write(d); // echo
    });
    waiters.splice(0).forEach((wake) => wake(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    accepted,
    received: () => received,
    nextConnection: () => new Promise((resolve) => waiters.push(resolve)),
    close: async () => {
      accepted.forEach((s) => s.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A client connection with everything it read collected, and a way to wait for some text. */
async function connect(port: number) {
  const socket = net.connect(port, "127.0.0.1");
  socket.on("error", () => {});
  let text = "";
  const waiters: (() => void)[] = [];
  socket.on("data", (d) => {
    text += d.toString();
    waiters.splice(0).forEach((wake) => wake());
  });
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("close", () => reject(new Error("closed before connecting")));
  });
  return {
    socket,
    closed,
    text: () => text,
    async waitFor(expected: string): Promise<void> {
      while (!text.includes(expected)) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}

// Proving that nothing arrives needs a window to look through; no event marks
// the absence of bytes. Long enough for loopback delivery, short for the suite.
const quietWindow = () => new Promise((r) => setTimeout(r, 200));

let upstream: Upstream;
let proxy: TcpProxy;

beforeEach(async () => {
  upstream = await startUpstream();
  proxy = await startTcpProxy({ host: "127.0.0.1", port: upstream.port });
});

afterEach(async () => {
  await proxy.close();
  await upstream.close();
});

describe("tcp proxy", () => {
  it("forwards bytes both ways", async () => {
    const client = await connect(proxy.port);
    client.socket.write("hello");
    await client.waitFor("hello");
    expect(upstream.received()).toBe("hello");
    expect(proxy.connections).toBe(1);
  });

  it("stall holds bytes in both directions without closing; resume delivers them in order", async () => {
    const client = await connect(proxy.port);
    client.socket.write("a");
    await client.waitFor("a");
    const serverSide = upstream.accepted[0]!;

    proxy.stall();
    client.socket.write("ping-1;");
    client.socket.write("ping-2;");
    serverSide.write("pushed;");
    await quietWindow();
    expect(upstream.received()).toBe("a");
    expect(client.text()).toBe("a");
    expect(client.socket.destroyed).toBe(false);
    expect(proxy.connections).toBe(1);

    proxy.resume();
    await client.waitFor("ping-2;");
    expect(upstream.received()).toBe("aping-1;ping-2;");
    expect(client.text()).toBe("apushed;ping-1;ping-2;");
  });

  it("connections opened during a stall forward nothing until resume", async () => {
    proxy.stall();
    const accepted = upstream.nextConnection();
    const client = await connect(proxy.port);
    client.socket.write("early");
    await accepted;
    await quietWindow();
    expect(upstream.received()).toBe("");

    proxy.resume();
    await client.waitFor("early");
    expect(upstream.received()).toBe("early");
  });

  it("cut closes every open connection on both sides and keeps accepting new ones", async () => {
    const one = await connect(proxy.port);
    const two = await connect(proxy.port);
    one.socket.write("x");
    two.socket.write("y");
    await Promise.all([one.waitFor("x"), two.waitFor("y")]);
    const serverClosed = Promise.all(upstream.accepted.map((s) => new Promise((r) => s.once("close", r))));

    expect(proxy.cut()).toBe(2);
    await Promise.all([one.closed, two.closed, serverClosed]);
    expect(proxy.connections).toBe(0);

    const three = await connect(proxy.port);
    three.socket.write("again");
    await three.waitFor("again");
  });

  it("cut also ends a stalled connection", async () => {
    const client = await connect(proxy.port);
    proxy.stall();
    client.socket.write("lost");
    proxy.cut();
    await client.closed;
    proxy.resume();
    expect(client.text()).toBe("");
  });

  it("refuse closes new connections at once and leaves open ones alone", async () => {
    const open = await connect(proxy.port);
    proxy.refuse(true);
    expect(proxy.refusing).toBe(true);

    const refused = net.connect(proxy.port, "127.0.0.1");
    refused.on("error", () => {});
    let got = "";
    refused.on("data", (d) => (got += d.toString()));
    refused.write("knock");
    await new Promise((r) => refused.once("close", r));
    expect(got).toBe("");
    expect(upstream.received()).toBe("");

    open.socket.write("still here");
    await open.waitFor("still here");

    proxy.refuse(false);
    const after = await connect(proxy.port);
    after.socket.write("welcome");
    await after.waitFor("welcome");
  });

  it("closes the client when the target cannot be reached", async () => {
    await upstream.close();
    const client = net.connect(proxy.port, "127.0.0.1");
    client.on("error", () => {});
    await new Promise((r) => client.once("close", r));
    expect(proxy.connections).toBe(0);
  });
});
