// The sandbox TRP peer's own test certificate authority, made with `openssl` at start (EC P-256: quick to make).
// It issues certificates for TLS servers and clients (subjectAltName, both extended key usages). Imports nothing of
// Caravan's; tests and the demo use it to give Caravan a certificate the peer accepts, and the peer one Caravan accepts.
import { execFileSync } from "node:child_process";
import { createHash, X509Certificate } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
  /** An intermediate CA signed by this one; what it issues carries `chain` (the intermediate's PEM) to present. */
  intermediate(name: string): TestCa & { chain: string };
  dispose(): void;
}

const openssl = (dir: string, args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });

export function makeTestCa(name = "TRP Sandbox Test CA"): TestCa {
  const dir = mkdtempSync(join(tmpdir(), "trp-ca-"));
  openssl(dir, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ca.key"]);
  openssl(dir, ["req", "-x509", "-new", "-key", "ca.key", "-subj", `/CN=${name}`, "-days", "30", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-out", "ca.pem"]);
  return caIn(dir, () => rmSync(dir, { recursive: true, force: true }));
}

let serial = 1;

function caIn(dir: string, dispose: () => void): TestCa {
  const caPem = readFileSync(join(dir, "ca.pem"), "utf8");
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
    intermediate(sub) {
      const n = `i${serial++}`;
      const subDir = join(dir, n);
      mkdirSync(subDir);
      openssl(subDir, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ca.key"]);
      openssl(subDir, ["req", "-new", "-key", "ca.key", "-subj", `/CN=${sub}`, "-out", "ca.csr"]);
      writeFileSync(join(subDir, "ca.ext"), "basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n");
      openssl(dir, ["x509", "-req", "-in", join(n, "ca.csr"), "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", String(1000 + serial), "-days", "30", "-extfile", join(n, "ca.ext"), "-out", join(n, "ca.pem")]);
      const inner = caIn(subDir, () => rmSync(subDir, { recursive: true, force: true }));
      return { ...inner, chain: inner.certificate };
    },
    dispose,
  };
}
