import { assertEquals } from "../../support/assert.ts";
import { CoalescedPasses } from "../../../sourcegraph/cluster/coalesced_passes.ts";

Deno.test("coalesced passes: asks during a pass make one more; a failed pass is reported and the next runs", async () => {
  let passes = 0;
  let release!: () => void;
  const errors: string[] = [];
  const runner = new CoalescedPasses(async () => {
    passes++;
    if (passes === 1) await new Promise<void>((resolve) => release = resolve);
    if (passes === 2) throw new Error("upstream gone");
  }, { onError: (error) => errors.push(error.message) });
  const first = runner.run();
  const asked = [runner.run(), runner.run(), runner.run()];
  release();
  await Promise.all([first, ...asked]);
  assertEquals(passes, 2);
  assertEquals(errors, ["upstream gone"]);
  await runner.run();
  assertEquals(passes, 3);
  await runner.stop();
});

Deno.test("coalesced passes: stop waits for the running pass, then nothing runs", async () => {
  let passes = 0;
  let release!: () => void;
  const runner = new CoalescedPasses(async () => {
    passes++;
    await new Promise<void>((resolve) => release = resolve);
  }, { onError: () => {} });
  void runner.run();
  void runner.run(); // would be a second pass, but stop comes first
  let stopped = false;
  const stopping = runner.stop().then(() => stopped = true);
  await Promise.resolve();
  assertEquals(stopped, false);
  assertEquals(runner.stopped, true);
  release();
  await stopping;
  runner.trigger();
  assertEquals(passes, 1);
});
