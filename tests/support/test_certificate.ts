/**
 * A certificate authority and a leaf certificate for 127.0.0.1 made by
 * openssl for one test (a TLS client refuses a self-signed certificate as
 * its own CA): the leaf's PEM and key for `Deno.serve`, and the CA's file
 * for a client (`DENO_CERT`, `Deno.createHttpClient`).
 *
 * @module
 */

import { join } from "node:path";
import { assert } from "./assert.ts";

/** The files and texts of a test certificate. */
export interface TestCertificate {
  cert: string;
  key: string;
  ca: string;
  caFile: string;
}

/** Makes a CA and a leaf for 127.0.0.1 in `dir` (created), and runs `fn` with them. */
export async function withCertificate<T>(
  dir: string,
  fn: (certificate: TestCertificate) => Promise<T>,
): Promise<T> {
  return await fn(await makeCertificate(dir));
}

/** Makes a CA and a leaf for 127.0.0.1 in `dir` (created). */
export async function makeCertificate(dir: string): Promise<TestCertificate> {
  await Deno.mkdir(dir, { recursive: true });
  const file = (name: string) => join(dir, name);
  await Deno.writeTextFile(
    file("leaf.cnf"),
    "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
  );
  for (
    const args of [
      ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=test-ca"]
        .concat(["-keyout", file("ca.key"), "-out", file("ca.pem")]),
      ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1"]
        .concat(["-keyout", file("key.pem"), "-out", file("leaf.csr")]),
      ["x509", "-req", "-in", file("leaf.csr"), "-CA", file("ca.pem"), "-CAkey", file("ca.key")]
        .concat(["-CAcreateserial", "-days", "1", "-out", file("cert.pem")])
        .concat(["-extfile", file("leaf.cnf")]),
    ]
  ) {
    const made = await new Deno.Command("openssl", { args, stdout: "null", stderr: "null" })
      .output();
    assert(made.success, `openssl ${args[0]} failed`);
  }
  return {
    cert: await Deno.readTextFile(file("cert.pem")),
    key: await Deno.readTextFile(file("key.pem")),
    ca: await Deno.readTextFile(file("ca.pem")),
    caFile: file("ca.pem"),
  };
}
