import { ownersOf, rankedReplicas } from "../../../sourcegraph/cluster/placement.ts";
import { assert, assertEquals } from "../../support/assert.ts";

const REPLICAS = ["a", "b", "c", "d", "e"];
const NAMES = Array.from({ length: 2_000 }, (_, i) => `org/repo-${i}`);

Deno.test("placement: owners are deterministic, distinct, as many as the replication allows", () => {
  for (const name of NAMES.slice(0, 100)) {
    const owners = ownersOf(name, { replicas: REPLICAS, replication: 2 });
    assertEquals(owners, ownersOf(name, { replicas: [...REPLICAS].reverse(), replication: 2 }));
    assertEquals(new Set(owners).size, 2);
    assertEquals(owners, rankedReplicas(name, REPLICAS).slice(0, 2));
  }
  assertEquals(ownersOf("org/x", { replicas: ["a"], replication: 2 }), ["a"], "capped by the live");
  assertEquals(ownersOf("org/x", { replicas: [], replication: 2 }), []);
});

Deno.test("placement: load spreads evenly, and a replica leaving moves only the repositories it owned", () => {
  const load = new Map<string, number>();
  for (const name of NAMES) {
    for (const owner of ownersOf(name, { replicas: REPLICAS, replication: 2 })) {
      load.set(owner, (load.get(owner) ?? 0) + 1);
    }
  }
  const expected = (NAMES.length * 2) / REPLICAS.length;
  for (const [replica, count] of load) {
    assert(Math.abs(count - expected) < expected * 0.15, `${replica}: ${count} of ~${expected}`);
  }
  const without = REPLICAS.filter((replica) => replica !== "c");
  let moved = 0;
  for (const name of NAMES) {
    const before = ownersOf(name, { replicas: REPLICAS, replication: 2 });
    const after = ownersOf(name, { replicas: without, replication: 2 });
    const kept = before.filter((owner) => owner !== "c");
    assert(kept.every((owner) => after.includes(owner)), `${name}: survivors keep it`);
    if (before.includes("c")) moved++;
    else assertEquals(after, before, `${name} did not move`);
  }
  assert(moved < NAMES.length * 0.5, `${moved} moved`);
});

Deno.test("placement: a pin names the owners that are alive; the hash fills the rest", () => {
  assertEquals(ownersOf("org/p", { replicas: REPLICAS, replication: 2, pins: ["e", "d"] }), [
    "e",
    "d",
  ]);
  const one = ownersOf("org/p", { replicas: REPLICAS, replication: 2, pins: ["e", "gone"] });
  assertEquals([one.length, one[0]], [2, "e"]);
  assertEquals(
    ownersOf("org/p", { replicas: REPLICAS, replication: 1, pins: ["a", "b", "c"] }),
    ["a", "b", "c"],
    "every live pinned replica owns it",
  );
});
