// Usage: node .ci/complete-lockfile.js (after any npm install that adds packages with platform binaries).
// Records optional platform packages the registry mirror lacks, so `npm ci` sees the lockfile in sync.
const fs = require('fs');
const file = process.argv[2] || 'package-lock.json';
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const pkgs = lock.packages;
const osOf = (n) =>
  /darwin/.test(n)
    ? 'darwin'
    : /win32|windows/.test(n)
      ? 'win32'
      : /freebsd/.test(n)
        ? 'freebsd'
        : /android/.test(n)
          ? 'android'
          : /openharmony/.test(n)
            ? 'openharmony'
            : /netbsd/.test(n)
              ? 'netbsd'
              : /openbsd/.test(n)
                ? 'openbsd'
                : /sunos/.test(n)
                  ? 'sunos'
                  : /aix/.test(n)
                    ? 'aix'
                    : /linux/.test(n)
                      ? 'linux'
                      : /wasm|wasi/.test(n)
                        ? null
                        : null;
const cpuOf = (n) =>
  /arm64|aarch64/.test(n)
    ? 'arm64'
    : /x64|x86_64|amd64|-64$/.test(n)
      ? 'x64'
      : /ia32|x86|-32$/.test(n)
        ? 'ia32'
        : /arm/.test(n)
          ? 'arm'
          : /ppc64/.test(n)
            ? 'ppc64'
            : /s390x/.test(n)
              ? 's390x'
              : /riscv64/.test(n)
                ? 'riscv64'
                : /loong64/.test(n)
                  ? 'loong64'
                  : /wasm32|wasi/.test(n)
                    ? 'wasm32'
                    : null;
let added = 0;
for (const [path, meta] of Object.entries(pkgs)) {
  for (const [name, range] of Object.entries(meta.optionalDependencies || {})) {
    const base = path ? `${path}/node_modules/${name}` : `node_modules/${name}`;
    const hoisted = `node_modules/${name}`;
    if (pkgs[base] || pkgs[hoisted]) continue;
    const entry = { version: range.replace(/^[\^~=]/, ''), optional: true };
    if (meta.dev) entry.dev = true;
    const os = osOf(name),
      cpu = cpuOf(name);
    if (os) entry.os = [os];
    if (cpu) entry.cpu = [cpu];
    pkgs[hoisted] = entry;
    added++;
  }
}
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`added ${added} optional platform entries`);
