import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { hiddenField, overHttp, pageRequest, signIn } from "../../support/page_requests.ts";
import { startService } from "../../support/sourcegraph_service.ts";

const TOKEN = "w".repeat(40);
// Nothing here searches: no index build (a builder process) on either start.
const SETTINGS = { SOURCEGRAPH_API_TOKEN: TOKEN, SOURCEGRAPH_SEARCH_INDEX: "false" };

// Two sessions over one restart: the one signed out before it stays out (its removal is the
// store's), the other survives it and signs out with the restored session's form.
Deno.test("sessions: a sign-in survives a restart of the service; sign-out ends it for good", async () => {
  const parent = await tempDir("sg-session-");
  const repo = await createRepo({ ".gitignore": ".sourcegraph/\n", "a.txt": "a\n" }, {
    parent,
    name: "project",
  });
  let service = await startService(repo.path, SETTINGS);
  const signedIn = (cookie: string) =>
    pageRequest(overHttp(service.url), "/sourcegraph/", { cookie })
      .then((home) => ({ home, in: home.body.includes("service token") }));
  const signOut = async (cookie: string, home: { body: string }) => {
    const out = await pageRequest(overHttp(service.url), "/sourcegraph/-/sign-out", {
      form: { csrf: hiddenField(home.body, "csrf")! },
      cookie,
    });
    assertEquals(out.status, 303);
  };
  try {
    const cookies: string[] = [];
    for (let i = 0; i < 2; i++) {
      const answer = await signIn(overHttp(service.url), TOKEN);
      assertEquals(answer.status, 303);
      cookies.push(answer.cookie!);
    }
    const [kept, ended] = cookies;
    assert((await signedIn(kept)).in, "signed in");
    const before = await signedIn(ended);
    assertIncludes(before.home.body, "service token");
    await signOut(ended, before.home);
    assert(!(await signedIn(ended)).in, "signed out");

    await service.stop();
    service = await startService(repo.path, SETTINGS);
    assert(!(await signedIn(ended)).in, "signed out stays signed out");
    const restored = await signedIn(kept);
    assertIncludes(restored.home.body, "service token");
    await signOut(kept, restored.home);
    assert(!(await signedIn(kept)).in, "the restored session signed out");
  } finally {
    await service.stop();
    await removeDir(parent);
  }
});
