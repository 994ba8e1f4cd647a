import { isTestOrGenerated } from "../../../../sourcegraph/search/query/path_kinds.ts";
import { assertEquals } from "../../../support/assert.ts";

Deno.test("path kinds: test and generated files by their paths; look-alike names are neither", () => {
  const later = [
    "pkg/http_test.go",
    "src/app.test.ts",
    "src/app.spec.tsx",
    "lib/test_parser.py",
    "tests/unit/app.ts",
    "test/app.rs",
    "web/__tests__/app.tsx",
    "pkg/testdata/input.txt",
    "api/v1/api.pb.go",
    "api/api_pb2.py",
    "ui/schema_generated.ts",
    "ui/schema.generated.ts",
    "dist/bundle.js",
    "vendor/github.com/x/y.go",
    "static/app.min.js",
    "node_modules/pkg/index.js",
  ];
  const first = [
    "src/testing.ts",
    "src/contest.ts",
    "src/attestation_spec_reader.go",
    "docs/tests.md",
    "src/latest/app.ts",
    "cmd/distribute.go",
    "src/generator.ts",
    "src/protest_test_helpers.ts",
  ];
  assertEquals(later.filter((path) => !isTestOrGenerated(path)), []);
  assertEquals(first.filter(isTestOrGenerated), []);
});
