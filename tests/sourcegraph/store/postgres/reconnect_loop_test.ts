// The reconnection loop with an injected clock and jitter: a loss reported
// twice per failed attempt (an error, then the end) runs one loop, the
// pauses double up to the cap, every connection of a failed attempt is
// closed, and the attempt count starts over only after a success.
import {
  type LosableConnection,
  ReconnectLoop,
  reconnectPause,
} from "../../../../sourcegraph/store/postgres/reconnect_loop.ts";
import { assert, assertEquals } from "../../../support/assert.ts";

class FakeConnection implements LosableConnection {
  lost = false;
  closes = 0;
  constructor(readonly id: number) {}
  close(): Promise<void> {
    this.closes++;
    return Promise.resolve();
  }
}

// What one attempt does: fail to open, open then fail to be made ready,
// open and be lost while being made ready, or succeed.
type Outcome = "refused" | "reload fails" | "lost again" | "ok";

function harness(outcomes: Outcome[]) {
  const logs: string[] = [];
  const pauses: number[] = [];
  const opened: FakeConnection[] = [];
  const installed: FakeConnection[] = [];
  let busy = 0;
  let mostBusy = 0;
  let attempts = 0;
  const loop: ReconnectLoop<FakeConnection> = new ReconnectLoop<FakeConnection>({
    firstMs: 100,
    capMs: 1_000,
    random: () => 0.5,
    sleep: async (ms) => {
      pauses.push(ms);
      await Promise.resolve();
    },
    what: "the store",
    describe: (error) => (error as Error).message,
    log: (line) => logs.push(line),
    open: async () => {
      busy++;
      mostBusy = Math.max(mostBusy, busy);
      // A failing connection reports its loss twice (an error, then its end).
      loop.start();
      loop.start();
      await Promise.resolve();
      const outcome = outcomes[attempts++] ?? "ok";
      busy--;
      if (outcome === "refused") throw new Error("connect ECONNREFUSED");
      const connection = new FakeConnection(attempts);
      opened.push(connection);
      return connection;
    },
    ready: async (connection) => {
      loop.start();
      await Promise.resolve();
      const outcome = outcomes[connection.id - 1] ?? "ok";
      if (outcome === "reload fails") throw new Error("53300 sorry, too many clients already");
      if (outcome === "lost again") connection.lost = true;
    },
    install: (connection) => installed.push(connection),
  });
  const stopped = async () => {
    for (let i = 0; i < 1_000 && loop.running; i++) await new Promise((r) => setTimeout(r, 1));
    assert(!loop.running, "the loop ended");
  };
  return {
    loop,
    logs,
    pauses,
    opened,
    installed,
    stopped,
    attempts: () => attempts,
    mostBusy: () => mostBusy,
  };
}

Deno.test("reconnect pause: doubles from the first pause up to the cap; half of it is jitter", () => {
  const at = (attempt: number, random: number) =>
    reconnectPause(attempt, { firstMs: 250, capMs: 5_000, random: () => random });
  assertEquals([1, 2, 3, 4, 5, 6, 7, 40].map((n) => at(n, 0)), [
    125,
    250,
    500,
    1_000,
    2_000,
    2_500,
    2_500,
    2_500,
  ]);
  assertEquals([1, 2, 3, 4, 5, 6, 7, 40].map((n) => at(n, 0.999_999)), [
    250,
    500,
    1_000,
    2_000,
    4_000,
    5_000,
    5_000,
    5_000,
  ]);
  assertEquals(at(10_000, 0.5), 3_750, "no overflow however long the outage");
});

Deno.test("reconnect loop: losses reported twice run one loop; every failed connection is closed", async () => {
  const outcomes: Outcome[] = [
    "refused",
    "refused",
    "refused",
    "reload fails",
    "reload fails",
    "lost again",
    "refused",
    "ok",
  ];
  const at = harness(outcomes);
  // The lost connection reports an error and its end: two starts, one loop.
  at.loop.start();
  at.loop.start();
  await at.stopped();
  assertEquals(at.attempts(), outcomes.length, "one attempt per pause, not a doubling chain");
  assertEquals(at.mostBusy(), 1, "one attempt at a time");
  assertEquals(at.pauses, [75, 150, 300, 600, 750, 750, 750, 750], "capped exponential backoff");
  const failed = at.opened.filter((connection) => connection !== at.installed[0]);
  assertEquals(failed.map((connection) => connection.closes), [1, 1, 1], "failed ones closed");
  assertEquals(at.installed.length, 1);
  assertEquals(at.installed[0].closes, 0, "the one kept stays open");
  assertEquals(at.logs.filter((line) => line.includes("is unreachable")).length, 1);
  assertEquals(
    at.logs.filter((line) => line.includes("still unreachable")).map((line) =>
      /attempt (\d+)/.exec(line)![1]
    ),
    ["1", "2", "3", "4", "5", "6", "7"],
  );
  assertEquals(at.logs.filter((line) => line.includes("reachable again")), [
    "the store is reachable again (attempt 8); cache reloaded",
  ]);

  // A later loss starts over from the first pause.
  at.loop.start();
  await at.stopped();
  assertEquals(at.pauses.slice(8), [75]);
  assertEquals(at.installed.length, 2);
  await at.loop.close();
});

Deno.test("reconnect loop: closing it ends a pending pause and closes a connection it opened meanwhile", async () => {
  let wake = () => {};
  const opened: FakeConnection[] = [];
  const installed: FakeConnection[] = [];
  let sleeps = 0;
  let loop: ReconnectLoop<FakeConnection> | null = null;
  let closing: Promise<void> | null = null;
  loop = new ReconnectLoop<FakeConnection>({
    sleep: (_ms, signal) => {
      sleeps++;
      return new Promise((resolve) => {
        wake = () => resolve();
        signal.addEventListener("abort", () => resolve());
      });
    },
    what: "the store",
    describe: String,
    log: () => {},
    open: () => {
      const connection = new FakeConnection(opened.length + 1);
      opened.push(connection);
      return Promise.resolve(connection);
    },
    // The store closes while the attempt reloads.
    ready: () => {
      closing = loop!.close();
      return Promise.resolve();
    },
    install: (connection) => installed.push(connection),
  });
  loop.start();
  wake();
  for (let i = 0; i < 1_000 && loop.running; i++) await new Promise((r) => setTimeout(r, 1));
  assertEquals(opened.length, 1);
  assertEquals(opened[0].closes, 1, "the connection of a closed loop is closed");
  assertEquals(installed.length, 0);
  await closing;

  const idle = new ReconnectLoop<FakeConnection>({
    sleep: (_ms, signal) => {
      sleeps++;
      return new Promise((resolve) => signal.addEventListener("abort", () => resolve()));
    },
    what: "the store",
    describe: String,
    log: () => {},
    open: () => Promise.reject(new Error("never called")),
    ready: () => Promise.resolve(),
    install: () => {},
  });
  idle.start();
  await idle.close();
  assert(!idle.running);
  idle.start();
  assert(!idle.running, "a closed loop does not start again");
  assertEquals(sleeps, 2);
});
