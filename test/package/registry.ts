// A registry on loopback for installs that must resolve a dependency by name (a global install has
// no lockfile to seed): it serves each package's document and its tarball, and nothing else.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface ServedPackage {
  name: string;
  version: string;
  tarball: string;
}

export interface LocalRegistry {
  url: string;
  /** Every path asked for, in order (what npm fetched). */
  requests: string[];
  close(): Promise<void>;
}

export async function startLocalRegistry(packages: readonly ServedPackage[]): Promise<LocalRegistry> {
  const requests: string[] = [];
  const files = new Map<string, Buffer>();
  const documents = new Map<string, () => string>();
  let base = "";
  for (const p of packages) {
    const bytes = readFileSync(p.tarball);
    const file = `/-/${p.name}-${p.version}.tgz`;
    files.set(file, bytes);
    const dist = {
      tarball: "",
      integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
      shasum: createHash("sha1").update(bytes).digest("hex"),
    };
    documents.set(`/${p.name}`, () =>
      JSON.stringify({
        name: p.name,
        "dist-tags": { latest: p.version },
        versions: { [p.version]: { name: p.name, version: p.version, dist: { ...dist, tarball: `${base}${file}` } } },
      }),
    );
  }
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? "/").split("?")[0]!);
    requests.push(path);
    const file = files.get(path);
    const document = documents.get(path);
    if (file !== undefined) res.writeHead(200, { "content-type": "application/octet-stream" }).end(file);
    else if (document !== undefined) res.writeHead(200, { "content-type": "application/json" }).end(document());
    else res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
