/**
 * The real service under an anonymous reload loop of READMEs built to be
 * slow to render: rendering happens in the worker while `/healthz` and
 * token reads answer, each README is rendered once, and memory stays flat.
 */

import { assert, assertEquals } from "../../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../../support/git_repo.ts";
import {
  pathologicalReadmeFiles,
  pathologicalReadmePages,
} from "../../../support/hostile_markdown.ts";
import { rssMib } from "../../../support/raw_http.ts";
import { readAlpha, startService } from "../../../support/sourcegraph_service.ts";

const TOKEN = "m".repeat(40);
const RSS_LIMIT_MIB = 700;
// The READMEs take up to seconds of markdown-it, past this limit as past the default 2 s:
// the worker is ended on them the same way, in half the time. A render must still outlast a
// probe (metrics, health and a token read) on a busy machine: at 200 ms most runs saw none.
const RENDER_LIMIT = "1s";
// Every kind once beside the top tables README: a second tables one (two different blobs of
// the slowest kind, so a render waits behind another), emphasis and nesting. Each costs the
// render limit in processor time; the benchmark renders five.
const FOLDERS = ["t1", "e1", "n1"];

// The value of one unlabelled series in a metrics exposition.
function metric(text: string, name: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  assert(line !== undefined, `no ${name} in the metrics`);
  return Number(line.slice(name.length + 1));
}

Deno.test("markdown flood: an anonymous README reload loop leaves health and token reads answering and RSS under 700 MiB", async () => {
  const parent = await tempDir("sg-markdown-flood-");
  const repo = await createRepo(pathologicalReadmeFiles({ folders: FOLDERS }), {
    parent,
    name: "project",
  });
  const service = await startService(repo.path, {
    SOURCEGRAPH_API_TOKEN: TOKEN,
    SOURCEGRAPH_ANONYMOUS_PER_MINUTE: "100000",
    SOURCEGRAPH_MARKDOWN_TIMEOUT: RENDER_LIMIT,
    // Nothing here searches: no index build (a builder process) beside the renders.
    SOURCEGRAPH_SEARCH_INDEX: "false",
  });
  const pages = pathologicalReadmePages(service.url, { folders: FOLDERS });
  const get = async (url: string, token?: string) => {
    const response = await fetch(url, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    return { status: response.status, body: await response.text() };
  };
  const read = async () => (await readAlpha(service.url, TOKEN)) === null;
  let peakRss = await rssMib(service.pid);
  let stop = false;
  let settled = false;
  const answered: number[] = [];
  // Pages asked for once every README was rendered: each must come from the cache.
  const answeredSettled: number[] = [];
  let loops: Promise<void>[] = [];
  try {
    assert(await read(), "the token read works before the loop");
    // One anonymous address, four connections, reloading the README pages round and round.
    loops = Array.from({ length: 4 }, async (_, n) => {
      for (let i = n; !stop; i++) {
        const askedSettled = settled;
        const page = await get(pages[i % pages.length]).catch(() => ({ status: -1 }));
        answered.push(page.status);
        if (askedSettled) answeredSettled.push(page.status);
      }
    });
    // While a render is in the worker (in flight before and after, the same render count),
    // health and a token read answer: the main thread is not the one rendering. One such
    // probe shows it (one render spanned it); a few more are taken while renders last, but
    // a busy machine may finish every README's render before a third probe sees one.
    let during = 0;
    let probes = 0;
    while (during < 3 && probes < 400) {
      probes++;
      peakRss = Math.max(peakRss, await rssMib(service.pid));
      const before = (await get(`${service.url}/metrics`, TOKEN)).body;
      if (metric(before, "sourcegraph_markdown_renders_in_flight") !== 1) {
        // Every README rendered: no render is left to probe during.
        if (metric(before, "sourcegraph_markdown_renders_total") === pages.length) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
        continue;
      }
      const [health, token] = await Promise.all([get(`${service.url}/healthz`), read()]);
      const after = (await get(`${service.url}/metrics`, TOKEN)).body;
      assertEquals(health, { status: 200, body: "ok\n" });
      assert(token, "a token read failed during the loop");
      if (
        metric(after, "sourcegraph_markdown_renders_in_flight") === 1 &&
        metric(after, "sourcegraph_markdown_renders_total") ===
          metric(before, "sourcegraph_markdown_renders_total")
      ) during++;
    }
    assert(during >= 1, `health never answered during a render in ${probes} probes`);
    // Every README was rendered at most once (its refusal or HTML is cached by blob); the
    // loop goes on answering from the cache.
    let metrics = "";
    for (let settle = 0; settle < 600; settle++) {
      metrics = (await get(`${service.url}/metrics`, TOKEN)).body;
      if (
        metric(metrics, "sourcegraph_markdown_renders_in_flight") === 0 &&
        metric(metrics, "sourcegraph_markdown_waiting") === 0 &&
        metric(metrics, "sourcegraph_markdown_renders_total") === pages.length
      ) break;
      peakRss = Math.max(peakRss, await rssMib(service.pid));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assertEquals(metric(metrics, "sourcegraph_markdown_renders_total"), pages.length);
    // A page that took its README from the render itself may still be on its way (a busy
    // machine assembles it slowly): only pages asked for from now on must be cache hits.
    const hitsSettled = metric(metrics, "sourcegraph_markdown_cache_hits_total");
    settled = true;
    const settledPages = () => answeredSettled.filter((status) => status === 200).length;
    for (let waits = 0; settledPages() < 12 && waits < 2_400; waits++) {
      peakRss = Math.max(peakRss, await rssMib(service.pid));
      assert(await read(), "a token read failed after the renders");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    // Each of these looked its README up before it was answered, so before this count.
    const servedSettled = settledPages();
    const final = (await get(`${service.url}/metrics`, TOKEN)).body;
    assertEquals(metric(final, "sourcegraph_markdown_renders_total"), pages.length);
    // A README ran past the limit the service was given, which its page's notice names.
    // With the token: the four anonymous loops hold the anonymous address's every slot.
    const readmes = await Promise.all(pages.map((page) => get(page, TOKEN)));
    assert(
      readmes.some((page) => page.body.includes("took longer than 1 s to render")),
      readmes.map((page) => page.status).join(" "),
    );
    assert(
      metric(final, "sourcegraph_markdown_cache_hits_total") - hitsSettled >= servedSettled,
      final.split("\n").filter((l) => l.startsWith("sourcegraph_markdown")).join("\n") +
        `\nafter the renders: ${answeredSettled.join(" ")}`,
    );
    assert(servedSettled >= 12, answeredSettled.join(" "));
    assertEquals(answered.filter((status) => status !== 200 && status !== 429), []);
    assert(peakRss < RSS_LIMIT_MIB, `RSS peaked at ${peakRss.toFixed(0)} MiB`);
    assert(
      !service.log.some((line) => line.includes("failed unexpectedly")),
      service.log.join("\n"),
    );
  } finally {
    stop = true;
    await Promise.all(loops);
    await service.stop();
    await removeDir(parent);
  }
});
