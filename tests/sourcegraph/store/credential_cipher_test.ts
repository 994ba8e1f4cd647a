import { join } from "node:path";
import {
  CredentialKeyUnusable,
  CredentialUnreadable,
  loadCredentialKey,
  openCredential,
  sealCredential,
} from "../../../sourcegraph/store/credential_cipher.ts";
import { assert, assertEquals, assertIncludes, assertRejects } from "../../support/assert.ts";
import { removeDir, tempDir } from "../../support/git_repo.ts";

function keyText(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
}

Deno.test("sealed credentials: open only with their key, for their repository, unchanged; the key file is checked", async () => {
  const dir = await tempDir("sg-cipher-");
  try {
    const path = join(dir, "credential.key");
    const text = keyText();
    await Deno.writeTextFile(path, `${text}\n`, { mode: 0o600 });
    const key = await loadCredentialKey(path);
    const secret = JSON.stringify({ kind: "https", username: "bot", token: "ghp_secret_value" });
    const sealed = await sealCredential(key, secret, { repositoryId: 7 });
    assert(
      sealed.startsWith("v1:") && !sealed.includes("ghp_secret_value") && !sealed.includes(text),
    );
    assertEquals(await openCredential(key, sealed, { repositoryId: 7 }), secret);
    assert(
      sealed !== await sealCredential(key, secret, { repositoryId: 7 }),
      "a fresh nonce each time",
    );

    const other = join(dir, "other.key");
    await Deno.writeTextFile(other, keyText(), { mode: 0o600 });
    const bytes = atob(sealed.slice(3));
    const flipped = "v1:" +
      btoa(bytes.slice(0, -1) + String.fromCharCode(bytes.charCodeAt(bytes.length - 1) ^ 1));
    for (
      const [label, open] of [
        [
          "another key",
          async () => openCredential(await loadCredentialKey(other), sealed, { repositoryId: 7 }),
        ],
        ["another repository", () => openCredential(key, sealed, { repositoryId: 8 })],
        ["a changed byte", () => openCredential(key, flipped, { repositoryId: 7 })],
        ["not a sealed value", () => openCredential(key, "plain text", { repositoryId: 7 })],
      ] as const
    ) {
      const error = await assertRejects(open, CredentialUnreadable);
      assertEquals(error.code, "CREDENTIAL_UNREADABLE", label);
      assert(!error.message.includes("ghp_secret_value"), label);
    }

    const cases: [string, string, number, string][] = [
      ["open.key", keyText(), 0o644, "readable by group or others"],
      ["short.key", btoa("x".repeat(16)), 0o600, "holds 16 bytes, not 32"],
      ["junk.key", "not base64 !!", 0o600, "does not hold base64"],
    ];
    for (const [name, content, mode, problem] of cases) {
      const file = join(dir, name);
      await Deno.writeTextFile(file, content);
      await Deno.chmod(file, mode);
      const error = await assertRejects(() => loadCredentialKey(file), CredentialKeyUnusable);
      assertIncludes(error.message, problem);
      assert(!error.message.includes(content), "the key is never in a message");
    }
    const missing = await assertRejects(
      () => loadCredentialKey(join(dir, "none.key")),
      CredentialKeyUnusable,
    );
    assertIncludes(missing.message, "cannot be read");
  } finally {
    await removeDir(dir);
  }
});
