import { assert } from "../../support/assert.ts";
import { withInProcessService } from "../../support/in_process_service.ts";
import { pageRequest } from "../../support/page_requests.ts";

// Values that turned into `Location: //evil.example/…` (an open redirect), and their kin.
const HOSTILE = [
  "..%2F..%2F%2Fevil.example",
  "../../\\evil.example",
  "%2e%2e/%2e%2e//evil.example",
  "a/../../..//evil.example/x",
  "%2F%2Fevil.example",
  "/\\evil.example",
  "%5C%5Cevil.example",
  "https://evil.example",
  "%0d%0aLocation:%20//evil.example",
];

Deno.test("redirects: every route that redirects answers a same-origin path of the pages, or 404, for hostile values", () =>
  withInProcessService(async ({ handle, store }) => {
    const repo = store.repository("org/open")!;
    const sha = store.versions(repo.id)[0].commit;
    for (const value of HOSTILE) {
      const raw = value.replace(/ /g, "%20");
      const paths = [
        `/sourcegraph/-/search?repo=${raw}&q=x`,
        `/sourcegraph/-/search?repo=org/${raw}&q=x`,
        `/sourcegraph/org/open?rev=main&dir=${raw}`,
        `/sourcegraph/org/open/-/tree/main/${raw}`,
        `/sourcegraph/org/open/-/blob/main/${raw}`,
        `/sourcegraph/org/open/blob/${sha}/${raw}`,
        `/sourcegraph/${raw}`,
        `/sourcegraph/${raw}/-/tree/main`,
        `/sourcegraph/org/open/-/blob/${sha}/${raw}?line=1&column=1`,
        `/sourcegraph/org/open/-/definition/main/${raw}?line=1&column=1`,
        `/sourcegraph/org/open/-/references/main/${raw}?line=1&column=1`,
        `/sourcegraph/org/open/-/definition/main/a.txt?line=1&column=1&next=${raw}`,
        `/sourcegraph/org/open/-/references/main/a.txt?line=1&column=1&after=${raw}`,
      ];
      for (const path of paths) {
        const answer = await pageRequest(handle, path);
        const location = answer.headers.get("location");
        if (answer.status >= 300 && answer.status < 400) {
          assert(location !== null, `${path}: a redirect without Location`);
          const target = new URL(location, "http://127.0.0.1");
          assert(
            location.startsWith("/sourcegraph") && target.origin === "http://127.0.0.1" &&
              !location.includes("//") && !location.includes("\\"),
            `${path} redirected to ${location}`,
          );
        } else {
          // A position or a cursor that is not one is the request's fault (400).
          assert([400, 404].includes(answer.status), `${path}: ${answer.status}`);
        }
      }
    }
    // Sound values still redirect (the test walks real redirects, not only refusals).
    const search = await pageRequest(handle, "/sourcegraph/-/search?repo=org/open&q=x");
    assert(search.headers.get("location") === "/sourcegraph/org/open/-/search?q=x");
    const tree = await pageRequest(handle, "/sourcegraph/org/open?rev=main&dir=docs");
    assert(tree.headers.get("location") === `/sourcegraph/org/open/-/tree/${sha}/docs`);
    // A name's link goes on to its definition view; the views of a branch to its SHA.
    const name = await pageRequest(
      handle,
      `/sourcegraph/org/open/-/blob/${sha}/a.txt?line=1&column=1`,
    );
    const definition = `/sourcegraph/org/open/-/definition/${sha}/a.txt?line=1&column=1`;
    assert(name.headers.get("location") === definition, `${name.headers.get("location")}`);
    const branch = await pageRequest(
      handle,
      "/sourcegraph/org/open/-/definition/main/a.txt?line=1&column=1&x=//evil.example",
    );
    assert(branch.headers.get("location") === definition, `${branch.headers.get("location")}`);
    // The site's root (the address the start log prints) leads to the pages' home.
    const root = await pageRequest(handle, "/");
    assert(root.status === 302 && root.headers.get("location") === "/sourcegraph/", root.body);
    for (const path of ["/?next=//evil.example", "//evil.example", "/nothing-here"]) {
      const other = await pageRequest(handle, path);
      const location = other.headers.get("location");
      assert(location === null || location === "/sourcegraph/", `${path} → ${location}`);
    }
  }));
