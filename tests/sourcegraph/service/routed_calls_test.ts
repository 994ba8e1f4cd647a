/**
 * The routed calls, defined once: every one goes through the router as
 * itself (its name, caller, repository and request), the routed object has
 * exactly the local one's calls, and a forwarded call's name is checked
 * against those calls, never looked up on an object's prototype.
 */

import type { Caller } from "../../../sourcegraph/access/caller.ts";
import { SourcegraphError } from "../../../sourcegraph/errors.ts";
import type {
  RepositoryRouter,
  RoutedCall,
} from "../../../sourcegraph/service/repository_router.ts";
import { routedMethods, runRoutedCall } from "../../../sourcegraph/service/routed_calls.ts";
import { assert, assertEquals, assertThrows } from "../../support/assert.ts";
import { connectInProcess, withInProcessService } from "../../support/in_process_service.ts";
import { echoed, ENABLED, fixtureWith } from "../../support/plugin_service.ts";
import { texts } from "../../support/tool_calls.ts";

const ANONYMOUS: Caller = { kind: "anonymous" };

// A router that runs every call here and notes what it was asked to route.
function countingRouter(): { router: RepositoryRouter; routed: RoutedCall[] } {
  const routed: RoutedCall[] = [];
  return {
    routed,
    router: {
      route: (call, local) => {
        routed.push(call);
        return local();
      },
      serving: () => null,
    },
  };
}

// One world for the two cases on the default repositories: the refusals first, on the local
// calls, then the router is installed.
Deno.test("routed calls: one service of the default repositories, case by case", (t) =>
  withInProcessService(async ({ service, localCalls }) => {
    await t.step(
      "routed calls: a forwarded name that is no routed call is refused before anything runs",
      async () => {
        for (
          const method of ["__proto__", "constructor", "toString", "hasOwnProperty", "READ", ""]
        ) {
          const error: SourcegraphError = assertThrows(
            () =>
              runRoutedCall(localCalls, {
                method,
                caller: ANONYMOUS,
                request: { repo: "org/open" },
              }),
            SourcegraphError,
          );
          assertEquals(error.code, "INVALID_REQUEST", method);
        }
        const answer = await runRoutedCall(localCalls, {
          method: "read",
          caller: ANONYMOUS,
          request: { repo: "org/open", path: "a.txt" },
        });
        assert((answer as { commit?: string }).commit, "a routed name runs its call");
      },
    );
    await t.step(
      "routed calls: each call reaches the router once, as itself, and answers as it does locally",
      async () => {
        const { router, routed } = countingRouter();
        service.useRouter(router);
        assertEquals(routedMethods(service.calls), routedMethods(localCalls));
        const request = { repo: "org/open", path: "a.txt" };
        const file = await service.calls.read(ANONYMOUS, request);
        assertEquals(file, await localCalls.read(ANONYMOUS, request));
        assertEquals(routed, [{ method: "read", caller: ANONYMOUS, repo: "org/open", request }]);
        routed.length = 0;
        const listing = await service.calls.list(ANONYMOUS, { repo: "org/open", first: 10 });
        assertEquals(listing.entries.map((entry) => entry.path), ["a.txt"]);
        await service.calls.versionHistory(ANONYMOUS, { repo: "org/open", first: 5 });
        assertEquals(routed.map((call) => [call.method, call.repo]), [
          ["list", "org/open"],
          ["versionHistory", "org/open"],
        ]);
        routed.length = 0;
        await service.availability(ANONYMOUS, { repo: "org/open", includePlugins: true });
        assertEquals(routed.map((call) => call.method), [
          "versionIndexes",
          "versionScip",
          "pluginCatalog",
        ]);
      },
    );
  }));

Deno.test("routed calls: an MCP read or read_many with plugins is one routed call, and the plugins' answer is in it", () =>
  withInProcessService(async ({ handle, service }) => {
    const { router, routed } = countingRouter();
    service.useRouter(router);
    const client = await connectInProcess(handle);
    try {
      for (
        const [tool, args] of [
          ["read", { repo: "org/plugged", path: "a.txt" }],
          ["read", { repo: "org/plugged", path: "a.txt", max_bytes: 8192 }],
          ["read_many", { repo: "org/plugged", files: [{ path: "a.txt" }, { path: "b.txt" }] }],
        ] as const
      ) {
        routed.length = 0;
        const result = await client.callTool({ name: tool, arguments: args });
        assert(!result.isError, `${tool}: ${JSON.stringify(result.content)}`);
        const blocks = texts(result);
        assertEquals(echoed(blocks.at(-1)!).operation, tool, "the plugin ran on the read");
        const methods = routed.map((call) => call.method).join(", ");
        assertEquals(routed.length, 1, `${tool} made these routed calls: ${methods}`);
        assertEquals(routed[0].repo, "org/plugged");
      }
    } finally {
      await client.close();
    }
  }, {
    repositories: [{
      name: "org/plugged",
      publicRead: true,
      files: {
        "a.txt": "alpha\n",
        "b.txt": "beta\n",
        "fixture.sourcegraph.wasm": fixtureWith("fixture", ENABLED),
      },
    }],
  }));
