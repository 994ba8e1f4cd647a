/**
 * Which files are tests or generated, by path conventions alone (no file is
 * read): test files (`*_test.*`, `*.test.*`, `*.spec.*`, `test_*.py`) and
 * files under test folders (`test/`, `tests/`, `__tests__/`, `testdata/`,
 * `fixtures/`, ...), and generated or vendored files (`*.pb.go`,
 * `*_generated.*`, `*.generated.*`, `*.min.js`, and files under `dist/`,
 * `vendor/`, `third_party/`, `node_modules/`, `generated/`). References put
 * such files after the others.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * assert.strictEqual(isTestOrGenerated("src/http_test.go"), true);
 * assert.strictEqual(isTestOrGenerated("web/__tests__/app.tsx"), true);
 * assert.strictEqual(isTestOrGenerated("api/v1/api.pb.go"), true);
 * assert.strictEqual(isTestOrGenerated("src/testing.ts"), false);
 * ```
 *
 * @module
 */

const TEST_FOLDER =
  /(^|\/)(tests?|__tests__|__mocks__|__snapshots__|testdata|test_data|testing_data|fixtures?|specs?|e2e)\//;
const TEST_FILE = /(^|\/)([^/]+[._-](test|tests|spec)\.[^/]+|test_[^/]+\.py|[^/]+_tests?\.rs)$/;
const GENERATED_FOLDER = /(^|\/)(dist|vendor|third_party|node_modules|generated|__generated__)\//;
const GENERATED_FILE =
  /(\.pb\.(go|cc|h)|_pb2(_grpc)?\.py|[._-]generated\.[^/]+|\.gen\.[^/]+|\.min\.(js|css)|\.snap)$/;

/** Whether `path` names a test file or a generated (or vendored) one, by its path. */
export function isTestOrGenerated(path: string): boolean {
  return TEST_FOLDER.test(path) || TEST_FILE.test(path) || GENERATED_FOLDER.test(path) ||
    GENERATED_FILE.test(path);
}
