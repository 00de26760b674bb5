// The sandbox TRP peer's own test certificate authority, made with `openssl` at start (EC P-256: quick to make).
// It issues certificates for TLS servers and clients (subjectAltName, both extended key usages). Imports nothing of
// Caravan's; tests and the demo use it to give Caravan a certificate the peer accepts, and the peer one Caravan accepts.
import { execFileSync } from "node:child_process";
import { createHash, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Issued {
  certificate: string;
  privateKey: string;
  /** SHA-256 of the certificate's DER, lower-case hex. */
  fingerprint: string;
}

export interface TestCa {
  certificate: string;
  issue(commonName: string, opts?: { dns?: string[]; ips?: string[]; days?: number }): Issued;
  dispose(): void;
}

const openssl = (dir: string, args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });

export function makeTestCa(name = "TRP Sandbox Test CA"): TestCa {
  const dir = mkdtempSync(join(tmpdir(), "trp-ca-"));
  openssl(dir, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ca.key"]);
  openssl(dir, ["req", "-x509", "-new", "-key", "ca.key", "-subj", `/CN=${name}`, "-days", "30", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-out", "ca.pem"]);
  const caPem = readFileSync(join(dir, "ca.pem"), "utf8");
  let serial = 1;
  return {
    certificate: caPem,
    issue(commonName, opts = {}) {
      const n = `c${serial++}`;
      openssl(dir, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", `${n}.raw.key`]);
      // PKCS#8, the form most TLS stacks read.
      openssl(dir, ["pkcs8", "-topk8", "-nocrypt", "-in", `${n}.raw.key`, "-out", `${n}.key`]);
      openssl(dir, ["req", "-new", "-key", `${n}.key`, "-subj", `/CN=${commonName}`, "-out", `${n}.csr`]);
      const sans = [...(opts.dns ?? ["localhost"]).map((d) => `DNS:${d}`), ...(opts.ips ?? ["127.0.0.1"]).map((i) => `IP:${i}`)];
      writeFileSync(join(dir, `${n}.ext`), `subjectAltName=${sans.join(",")}\nextendedKeyUsage=serverAuth,clientAuth\nbasicConstraints=CA:FALSE\n`);
      openssl(dir, ["x509", "-req", "-in", `${n}.csr`, "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", String(1000 + serial), "-days", String(opts.days ?? 30), "-extfile", `${n}.ext`, "-out", `${n}.pem`]);
      const certificate = readFileSync(join(dir, `${n}.pem`), "utf8");
      return { certificate, privateKey: readFileSync(join(dir, `${n}.key`), "utf8"), fingerprint: createHash("sha256").update(new X509Certificate(certificate).raw).digest("hex") };
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
