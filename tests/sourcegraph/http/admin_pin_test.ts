import { assertEquals, assertIncludes } from "../../support/assert.ts";
import {
  adminFetch,
  withInProcessService,
  WORLD_KEY,
  WORLD_TOKEN,
} from "../../support/in_process_service.ts";

Deno.test("admin: pins are for replicas of a cluster; the single process says so, and bad pins are refused first", () =>
  withInProcessService(async ({ handle }) => {
    const admin = adminFetch(handle, WORLD_TOKEN);
    const single = await admin("PUT", "/repo/pin?repo=org/open", { body: { replicas: ["sg-1"] } });
    assertEquals(single.status, 400);
    const body = await single.json();
    assertEquals(body.code, "INVALID_REQUEST");
    assertIncludes(body.message, "this service is a single process");
    for (
      const bad of [{}, { replicas: [] }, { replicas: ["Bad Name"] }, { replicas: ["a"], x: 1 }]
    ) {
      const refused = await admin("PUT", "/repo/pin?repo=org/open", { body: bad });
      assertEquals(refused.status, 400, JSON.stringify(bad));
      await refused.body?.cancel();
    }
    const missing = await admin("PUT", "/repo/pin?repo=org/none", { body: { replicas: ["a"] } });
    assertEquals(missing.status, 404);
    await missing.body?.cancel();
    const keyed = await adminFetch(handle, WORLD_KEY)("DELETE", "/repo/pin?repo=org/open");
    assertEquals(keyed.status, 401, "the admin API needs the service token");
    await keyed.body?.cancel();
  }));
