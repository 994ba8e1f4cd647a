import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { hiddenField, overHttp, pageRequest, signIn } from "../../support/page_requests.ts";
import { startService } from "../../support/sourcegraph_service.ts";

const TOKEN = "s".repeat(40);

Deno.test("Sync now: a signed-in person's button (CSRF-checked) syncs the repository and goes back to its page; others get no button and a refusal", async () => {
  const parent = await tempDir("sg-sync-now-");
  const repo = await createRepo({ ".gitignore": ".sourcegraph/\n", "a.txt": "one\n" }, {
    parent,
    name: "project",
  });
  // The local check waits an hour: only the button syncs here.
  const service = await startService(repo.path, {
    SOURCEGRAPH_API_TOKEN: TOKEN,
    SOURCEGRAPH_LOCAL_CHECK: "1h",
  });
  try {
    const http = overHttp(service.url);
    const anonymous = await pageRequest(http, "/sourcegraph/local/project");
    assertEquals(anonymous.status, 200);
    assert(!anonymous.body.includes("Sync now"), "no button for an anonymous viewer");
    const signedIn = await signIn(http, TOKEN);
    const cookie = signedIn.cookie!;
    const own = await pageRequest(http, "/sourcegraph/local/project", { cookie });
    assertIncludes(own.body, "Sync now");
    assertIncludes(own.body, '<input type="hidden" name="repo" value="local/project"');
    const csrf = hiddenField(own.body, "csrf")!;

    await repo.write({ "a.txt": "two\n" });
    const commit = await repo.commit("two");
    const line = `synced local/project: main@${commit.slice(0, 12)}`;
    const refusals = [
      [{ csrf, repo: "local/project" }, undefined, 401],
      [{ csrf: "x".repeat(csrf.length), repo: "local/project" }, cookie, 403],
      [{ csrf, repo: "local/nothing" }, cookie, 404],
    ] as const;
    for (const [form, withCookie, status] of refusals) {
      const answer = await pageRequest(http, "/sourcegraph/-/sync", { form, cookie: withCookie });
      assertEquals(answer.status, status, answer.body);
    }
    assert(!service.log.some((l) => l.includes(line)), "a refused form syncs nothing");

    const synced = await pageRequest(http, "/sourcegraph/-/sync", {
      form: { csrf, repo: "local/project" },
      cookie,
    });
    assertEquals(synced.status, 303);
    assertEquals(synced.headers.get("location"), "/sourcegraph/local/project");
    for (let tries = 0; tries < 600 && !service.log.some((l) => l.includes(line)); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assertEquals(service.log.filter((l) => l.includes(line)).length, 1, service.log.join("\n"));
    const read = await fetch(`${service.url}/sourcegraph/v1/repo/read?repo=local/project`, {
      method: "POST",
      body: JSON.stringify({ Path: "a.txt" }),
    });
    assertEquals((await read.json()).Content, "two\n");
  } finally {
    await service.stop();
    await removeDir(parent);
  }
});
