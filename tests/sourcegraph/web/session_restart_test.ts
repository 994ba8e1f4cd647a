import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { hiddenField, overHttp, pageRequest, signIn } from "../../support/page_requests.ts";
import { startService } from "../../support/sourcegraph_service.ts";

const TOKEN = "w".repeat(40);

Deno.test("sessions: a sign-in survives a restart of the service; sign-out ends it for good", async () => {
  const parent = await tempDir("sg-session-");
  const repo = await createRepo({ ".gitignore": ".sourcegraph/\n", "a.txt": "a\n" }, {
    parent,
    name: "project",
  });
  let service = await startService(repo.path, { SOURCEGRAPH_API_TOKEN: TOKEN });
  try {
    const signedIn = await signIn(overHttp(service.url), TOKEN);
    assertEquals(signedIn.status, 303);
    const cookie = signedIn.cookie!;
    assertIncludes(
      (await pageRequest(overHttp(service.url), "/sourcegraph/", { cookie })).body,
      "service token",
    );

    await service.stop();
    service = await startService(repo.path, { SOURCEGRAPH_API_TOKEN: TOKEN });
    const home = await pageRequest(overHttp(service.url), "/sourcegraph/", { cookie });
    assertIncludes(home.body, "service token");
    const out = await pageRequest(overHttp(service.url), "/sourcegraph/-/sign-out", {
      form: { csrf: hiddenField(home.body, "csrf")! },
      cookie,
    });
    assertEquals(out.status, 303);
    await service.stop();
    service = await startService(repo.path, { SOURCEGRAPH_API_TOKEN: TOKEN });
    const after = await pageRequest(overHttp(service.url), "/sourcegraph/", { cookie });
    assert(!after.body.includes("service token"), "signed out stays signed out");
  } finally {
    await service.stop();
    await removeDir(parent);
  }
});
