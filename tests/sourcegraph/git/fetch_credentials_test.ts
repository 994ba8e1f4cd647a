import { join } from "node:path";
import { GitError } from "../../../shared/git.ts";
import { FetchCredentials, httpOrigin } from "../../../sourcegraph/store/fetch_credentials.ts";
import { classifyFetchFailure, syncFailureCode } from "../../../sourcegraph/git/fetch_failures.ts";
import { fetchTransports } from "../../../sourcegraph/git/repository_sync.ts";
import { SOURCE } from "../../../sourcegraph/store/registration.ts";
import { assert, assertEquals } from "../../support/assert.ts";
import { removeDir, tempDir } from "../../support/git_repo.ts";

Deno.test("fetch failures: Git's refusals become three stable codes with fixed messages", () => {
  const cases: [string, string][] = [
    ["fatal: Authentication failed for 'https://example.org/o/r.git/'", "GIT_AUTH_FAILED"],
    [
      "fatal: could not read Username for 'https://example.org': terminal prompts disabled",
      "GIT_AUTH_FAILED",
    ],
    [
      "git@example.org: Permission denied (publickey).\nfatal: Could not read from remote repository.",
      "GIT_AUTH_FAILED",
    ],
    [
      "remote: Repository not found.\nfatal: repository 'https://example.org/o/r.git/' not found",
      "GIT_ACCESS_DENIED",
    ],
    [
      "fatal: unable to access 'https://x/': The requested URL returned error: 403",
      "GIT_ACCESS_DENIED",
    ],
    [
      "ERROR: Repository not found.\nfatal: Could not read from remote repository.",
      "GIT_ACCESS_DENIED",
    ],
    ["fatal: unable to access 'https://x/': Could not resolve host: x", "GIT_FETCH_FAILED"],
    [
      "Host key verification failed.\nfatal: Could not read from remote repository.",
      "GIT_FETCH_FAILED",
    ],
    ["fatal: unable to access 'http://127.0.0.1:1/': Failed to connect", "GIT_FETCH_FAILED"],
  ];
  for (const [stderr, code] of cases) {
    const classified = classifyFetchFailure(new GitError("GIT_FAILED", "git failed", { stderr }));
    assertEquals(classified.code, code, stderr);
    assert(!classified.message.includes("example.org"), "the message never names the remote");
    assertEquals(syncFailureCode(classified), code);
  }
  const timeout = new GitError("GIT_TIMEOUT", "git timed out");
  assertEquals(classifyFetchFailure(timeout), timeout);
  assertEquals(syncFailureCode(timeout), "SYNC_FAILED");
  assertEquals(syncFailureCode(new Error("x")), "SYNC_FAILED");
});

Deno.test("fetch credentials: stored owner-only in the data folder; Git gets paths, never values", async () => {
  const data = await tempDir("sg-credentials-");
  try {
    const credentials = new FetchCredentials(data);
    const token = "tok_" + "9".repeat(30);
    await credentials.set(4, { kind: "https", username: "bot", token });
    assertEquals(credentials.kind(4), "https");
    const folder = join(data, "credentials", "4");
    assertEquals(Deno.statSync(folder).mode! & 0o777, 0o700);
    assertEquals(
      Deno.readTextFileSync(join(folder, "https.credential")),
      `username=bot\npassword=${token}\n`,
    );
    const args = await credentials.gitArgs(4, "https://user@code.example.org:8443/org/repo.git");
    assertEquals(args.length, 2);
    assert(args[1].startsWith("credential.https://code.example.org:8443.helper=!"), args[1]);
    assert(!args.join(" ").includes(token), "no secret in the arguments");
    assertEquals(
      await credentials.gitArgs(4, "ssh://git@example.org/repo.git"),
      [],
      "https credential, ssh source",
    );
    // Replacing it with an ssh key removes the token file; a killed write's leftovers go on the next.
    Deno.writeTextFileSync(join(folder, "ssh_key.tmp-left"), "partial");
    await credentials.set(4, {
      kind: "ssh",
      privateKey: "-----BEGIN OPENSSH PRIVATE KEY-----\nx\n-----END OPENSSH PRIVATE KEY-----",
      knownHosts: "example.org ssh-ed25519 AAAA",
    });
    assertEquals(credentials.kind(4), "ssh");
    assertEquals([...Deno.readDirSync(folder)].map((entry) => entry.name).sort(), [
      "known_hosts",
      "ssh_key",
    ]);
    const ssh = (await credentials.gitArgs(4, "git@example.org:org/repo.git")).join(" ");
    for (
      const option of [
        "IdentitiesOnly=yes",
        "StrictHostKeyChecking=yes",
        "IdentityAgent=none",
        "BatchMode=yes",
        "-F /dev/null",
      ]
    ) {
      assert(ssh.includes(option), option);
    }
    assert(!ssh.includes("PRIVATE KEY"));
    assertEquals(await credentials.remove(4), true);
    assertEquals([credentials.kind(4), await credentials.remove(4)], [null, false]);
    assertEquals(await credentials.gitArgs(4, "https://example.org/r.git"), []);
  } finally {
    await removeDir(data);
  }
});

Deno.test("sources: no password in a URL; plain http only to a loopback address", () => {
  assertEquals(SOURCE.safeParse("https://user:secret@example.org/r.git").success, false);
  assertEquals(SOURCE.safeParse("https://user@example.org/r.git").success, true);
  assertEquals(SOURCE.safeParse("git@example.org:org/r.git").success, true);
  assertEquals(SOURCE.safeParse("/srv/git/r.git").success, true);
  assert(fetchTransports("http://127.0.0.1:9/r.git").includes("http"));
  assert(!fetchTransports("http://example.org/r.git").includes("http"));
  assert(!fetchTransports("https://example.org/r.git").includes("http"));
  assertEquals(httpOrigin("https://u@host:1/x"), "https://host:1");
  assertEquals(httpOrigin("git@host:x"), null);
});
