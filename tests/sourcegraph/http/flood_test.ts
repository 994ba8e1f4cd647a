import { assert, assertEquals } from "../../support/assert.ts";
import { deepJsonFlood } from "../../support/deep_json_flood.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { peakRssMib, portOf, rssMib } from "../../support/raw_http.ts";
import { readAlpha, startService } from "../../support/sourcegraph_service.ts";

const TOKEN = "t".repeat(40);

Deno.test("flood: anonymous 3.9 MB deep-JSON bodies from 4 addresses fail no token read and leave memory flat", async () => {
  const parent = await tempDir("sg-flood-");
  const repo = await createRepo({ "a.txt": "alpha\n", ".gitignore": ".sourcegraph/\n" }, {
    parent,
    name: "project",
  });
  // No search index: no index builder process beside the flood (the reads need none).
  const service = await startService(repo.path, {
    SOURCEGRAPH_API_TOKEN: TOKEN,
    SOURCEGRAPH_SEARCH_INDEX: "false",
  });
  try {
    const read = () => readAlpha(service.url, TOKEN);
    for (let i = 0; i < 20; i++) assertEquals(await read(), null);
    const before = await rssMib(service.pid);
    const outcome = await deepJsonFlood(portOf(service.url), {
      pid: service.pid,
      addresses: ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"],
      threads: 8,
      // Eight bodies in flight at once reach the peak within a second; three seconds hold it,
      // and the flood goes on until the token holder has had ten reads answered.
      seconds: 3,
      minReads: 10,
      read,
    });
    // The kernel's high-water mark: no peak between two samples is missed.
    const peak = Math.max(outcome.peakRssMib, await peakRssMib(service.pid));
    assertEquals(outcome.failures, [], "a token read failed during the flood");
    assert(outcome.attacks >= 8, `only ${outcome.attacks} attack requests were sent`);
    assert(outcome.latencies.length >= 10, `only ${outcome.latencies.length} reads answered`);
    assert(
      peak - before < 300,
      `RSS grew from ${before.toFixed(0)} to ${peak.toFixed(0)} MiB during the flood`,
    );
    // Nothing from the attack was parsed: no unexpected failure was logged.
    assert(
      !service.log.some((line) => line.includes("failed unexpectedly")),
      service.log.join("\n"),
    );
    assertEquals(await read(), null);
  } finally {
    await service.stop();
    await removeDir(parent);
  }
});
