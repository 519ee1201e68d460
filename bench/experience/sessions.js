/**
 * The evaluation set: scripted agent sessions with recurring mistakes. Each has the transcript of the
 * session where the mistake happened (a failed tool call and the fix that worked), and later tool calls
 * that repeat the situation in other words (`repeats`), which intercept should answer with that lesson.
 * `unrelated` calls should get nothing.
 */
const s = (id, workspace, transcript, repeats) => ({ id, workspace, transcript: transcript.trim(), repeats });
const bash = (command, task) => ({
  toolName: 'Bash',
  toolInput: { command },
  ...(task ? { context: { task } } : {}),
});
const edit = (file_path, new_string) => ({ toolName: 'Edit', toolInput: { file_path, new_string } });

const SESSIONS = [
  s(
    'jest-unbuilt-libs',
    'monorepo',
    `
[Bash] npx jest apps/identity
error: Cannot find module '@arbiter/platform' from apps/identity/src/service.ts
assistant: the workspace libraries have no dist yet; run npm run build before running jest in a fresh worktree`,
    [
      bash('npm test -w apps/identity'),
      bash('npx jest libs/auth', 'jest cannot find module of a workspace package'),
    ],
  ),
  s(
    'git-push-rejected',
    'webapp',
    `
[Bash] git push origin main
error: failed to push some refs, updates were rejected because the remote contains work you do not have
assistant: use git pull --rebase origin main before pushing instead of forcing the push`,
    [
      bash('git push'),
      bash('git push origin feature/login', 'push rejected non-fast-forward remote contains work'),
    ],
  ),
  s(
    'port-in-use',
    'webapp',
    `
[Bash] npm run dev
error: listen EADDRINUSE: address already in use :::3000
assistant: another dev server holds port 3000; start with PORT=3001 npm run dev instead of killing unknown processes`,
    [bash('npm start'), bash('node server.js', 'address already in use port 3000')],
  ),
  s(
    'python-venv',
    'ml-pipeline',
    `
[Bash] pip install pandas
error: externally-managed-environment, this environment is externally managed
assistant: create a virtual environment first: python3 -m venv .venv and use .venv/bin/pip install`,
    [bash('pip install numpy'), bash('pip3 install -r requirements.txt')],
  ),
  s(
    'docker-permission',
    'infra',
    `
[Bash] docker ps
error: permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock
assistant: the user is not in the docker group; run sudo usermod -aG docker $USER and start a new login shell`,
    [bash('docker compose up -d'), bash('docker build -t api .', 'permission denied docker daemon socket')],
  ),
  s(
    'tsc-esm-import',
    'sdk',
    `
[Bash] npx tsc -p tsconfig.json
error TS2835: Relative import paths need explicit file extensions in ECMAScript imports when moduleResolution is node16
assistant: with module nodenext, relative imports must end in .js, for example import { x } from './util.js'`,
    [bash('npm run typecheck'), edit('src/index.ts', "import { client } from './client'")],
  ),
  s(
    'prisma-migrate',
    'api',
    `
[Bash] npm run start:api
error: The table public.User does not exist in the current database (Prisma P2021)
assistant: after a schema change run npx prisma migrate deploy before starting the api server`,
    [
      bash('npm run start:api'),
      bash('node dist/main.js', 'prisma table does not exist in the current database'),
    ],
  ),
  s(
    'eslint-flat-config',
    'frontend',
    `
[Bash] npx eslint src
error: ESLint couldn't find an eslint.config.(js|mjs|cjs) file
assistant: eslint 9 uses flat config; create eslint.config.js instead of .eslintrc.json`,
    [bash('npm run lint'), bash('npx eslint . --fix', 'eslint could not find config file')],
  ),
  s(
    'node-version',
    'backend',
    `
[Bash] npm ci
npm warn EBADENGINE Unsupported engine required node >=22 current node v18.19.0
error: SyntaxError: Unexpected token '??='
assistant: the project needs Node 22; run nvm use 22 (see .nvmrc) before npm ci`,
    [bash('npm install'), bash('npm run build', 'unsupported engine node version too old')],
  ),
  s(
    'sed-macos',
    'scripts',
    `
[Bash] sed -i 's/foo/bar/' config.ini
error: sed: 1: "config.ini": invalid command code c
assistant: BSD sed on macOS needs an empty suffix: sed -i '' 's/foo/bar/' file, or use perl -pi -e`,
    [bash("sed -i 's/localhost/db/' .env"), bash("sed -i -e 's/v1/v2/g' README.md")],
  ),
  s(
    'go-mod-tidy',
    'go-service',
    `
[Bash] go build ./...
error: missing go.sum entry for module providing package github.com/gin-gonic/gin
assistant: run go mod tidy to add the missing go.sum entries, then build again`,
    [bash('go build ./cmd/server'), bash('go test ./...', 'missing go.sum entry for module')],
  ),
  s(
    'cargo-feature',
    'rust-cli',
    `
[Bash] cargo build
error[E0432]: unresolved import tokio::net, could not find net in tokio
assistant: enable the tokio feature: in Cargo.toml use tokio = { version = "1", features = ["full"] }`,
    [bash('cargo run'), bash('cargo test', 'unresolved import tokio net feature')],
  ),
  s(
    'kubectl-context',
    'infra',
    `
[Bash] kubectl apply -f deploy.yaml
error: the namespace production was modified on the wrong cluster context
assistant: always check kubectl config current-context before kubectl apply; use --context staging explicitly`,
    [bash('kubectl apply -f service.yaml'), bash('kubectl delete pod api-0')],
  ),
  s(
    'terraform-lock',
    'infra',
    `
[Bash] terraform apply
error: Error acquiring the state lock, ConditionalCheckFailedException, lock held by another run
assistant: wait for the other run or use terraform force-unlock <LOCK_ID> only after confirming no apply is running`,
    [bash('terraform plan'), bash('terraform apply -auto-approve', 'error acquiring the state lock')],
  ),
  s(
    'json-trailing-comma',
    'config',
    `
[Edit] package.json added "scripts": { "test": "jest", }
[Bash] npm test
error: Unexpected token } in JSON at position 312 while parsing package.json
assistant: JSON does not allow trailing commas; remove the comma after the last entry in package.json`,
    [edit('package.json', '"build": "tsc",\n  }'), edit('tsconfig.json', '"strict": true,\n}')],
  ),
  s(
    'react-hook-order',
    'frontend',
    `
[Bash] npm test
error: React Hook useEffect is called conditionally. React Hooks must be called in the exact same order
assistant: move the hook above the early return; hooks must not be inside conditions or after returns`,
    [
      edit('src/components/Profile.tsx', 'if (!user) return null;\n  useEffect(() => load(), [])'),
      bash('npm run lint', 'react hook called conditionally'),
    ],
  ),
  s(
    'sql-migration-lock',
    'api',
    `
[Bash] psql -c "ALTER TABLE orders ADD COLUMN note text DEFAULT 'x' NOT NULL"
error: canceling statement due to lock timeout on table orders
assistant: on large tables add the column nullable first, backfill in batches, then set NOT NULL; set lock_timeout`,
    [
      bash('psql -f migrations/0042_add_status.sql', 'alter table add column lock timeout'),
      bash('npm run migrate'),
    ],
  ),
  s(
    'env-missing',
    'backend',
    `
[Bash] npm run start
error: Missing required environment variable DATABASE_URL
assistant: copy .env.example to .env and set DATABASE_URL before starting the server`,
    [bash('npm run start:dev'), bash('node index.js', 'missing required environment variable')],
  ),
  s(
    'pytest-import',
    'ml-pipeline',
    `
[Bash] pytest tests/
error: ModuleNotFoundError: No module named 'pipeline'
assistant: install the package in editable mode with pip install -e . or run python -m pytest from the repository root`,
    [bash('pytest tests/test_features.py'), bash('pytest -k train', 'no module named pipeline')],
  ),
  s(
    'git-detached',
    'webapp',
    `
[Bash] git commit -m "fix"
warning: you are in 'detached HEAD' state; commits will be lost when you switch branches
assistant: create a branch before committing: git switch -c fix/branch-name`,
    [bash('git commit -am "wip"'), bash('git checkout v1.2.0')],
  ),
  s(
    'rm-rf-build',
    'scripts',
    `
[Bash] rm -rf $BUILD_DIR/
error: removed /home/user files because BUILD_DIR was empty
assistant: never rm -rf with an unset variable; use \${BUILD_DIR:?} so the shell stops when it is empty`,
    [bash('rm -rf $OUT_DIR/*'), bash('rm -rf "$TMP"/cache')],
  ),
  s(
    'npm-peer-deps',
    'frontend',
    `
[Bash] npm install react-query
error: ERESOLVE unable to resolve dependency tree, peer react@"^18" from react-query
assistant: use @tanstack/react-query which supports React 19 instead of --legacy-peer-deps`,
    [bash('npm install react-query@3'), bash('npm i react-query', 'eresolve peer dependency conflict react')],
  ),
  s(
    'vite-env',
    'frontend',
    `
[Bash] npm run build
error: process is not defined, ReferenceError in src/api.ts using process.env.API_URL
assistant: in Vite use import.meta.env.VITE_API_URL; process.env does not exist in the browser bundle`,
    [
      edit('src/config.ts', 'const url = process.env.API_URL'),
      bash('npm run dev', 'process is not defined in vite'),
    ],
  ),
  s(
    'ssh-key-perms',
    'infra',
    `
[Bash] ssh -i deploy.pem ubuntu@host
error: WARNING UNPROTECTED PRIVATE KEY FILE, permissions 0644 for deploy.pem are too open
assistant: restrict the key: chmod 600 deploy.pem before using it with ssh`,
    [bash('ssh -i keys/prod.pem admin@10.0.0.5'), bash('scp -i deploy.pem dist.tgz ubuntu@host:')],
  ),
  s(
    'curl-json-header',
    'api',
    `
[Bash] curl -X POST localhost:8080/api/users -d '{"name":"a"}'
error: 415 Unsupported Media Type
assistant: send the content type: curl -H 'content-type: application/json' -d '{...}'`,
    [
      bash(`curl -X POST http://localhost:8080/api/orders -d '{"id":1}'`),
      bash('curl -d @body.json localhost:3000/items', 'unsupported media type 415'),
    ],
  ),
  s(
    'timezone-tests',
    'backend',
    `
[Bash] npm test
error: expected 2024-03-10T00:00:00.000Z received 2024-03-09T23:00:00.000Z in date.spec.ts
assistant: date tests depend on the machine timezone; run them with TZ=UTC npm test and construct dates in UTC`,
    [
      bash('npx jest date.spec.ts'),
      bash('npm test -- --testPathPattern=report', 'date test off by one hour timezone'),
    ],
  ),
  s(
    'gradle-daemon-memory',
    'android',
    `
[Bash] ./gradlew assembleDebug
error: Expiring Daemon because JVM heap space is exhausted, OutOfMemoryError
assistant: raise the gradle heap: org.gradle.jvmargs=-Xmx4g in gradle.properties`,
    [bash('./gradlew build'), bash('./gradlew test', 'gradle daemon out of memory heap space')],
  ),
  s(
    'openapi-regenerate',
    'monorepo',
    `
[Bash] npm run ci
error: docs/openapi/identity.json is stale; the generated client differs from the committed one
assistant: run npm run build to regenerate docs/openapi and libs/client/src/generated and commit them with the change`,
    [
      bash('git commit -am "add endpoint"', 'commit after changing an endpoint'),
      bash('npm run ci', 'openapi document stale generated client differs'),
    ],
  ),
  s(
    'pglite-transaction-hang',
    'monorepo',
    `
[Bash] npx jest test/experience.e2e-spec.ts
error: Timeout - Async callback was not invoked within 10000 ms; query issued outside the open transaction hangs on PGlite
assistant: on PGlite run every query of a transaction on its manager; a query on another connection waits for the transaction`,
    [
      bash('npx jest test/license.e2e-spec.ts', 'test hangs timeout pglite transaction'),
      edit('src/repo.ts', 'await this.dataSource.query(sql) inside uow.run'),
    ],
  ),
  s(
    'helm-values',
    'infra',
    `
[Bash] helm upgrade api ./chart
error: template: api/templates/deployment.yaml: nil pointer evaluating interface {}.image
assistant: pass the values file: helm upgrade api ./chart -f values/production.yaml`,
    [
      bash('helm install api ./chart'),
      bash('helm upgrade --install web ./charts/web', 'nil pointer evaluating values image'),
    ],
  ),
  s(
    'windows-line-endings',
    'scripts',
    `
[Bash] ./deploy.sh
error: /bin/bash^M: bad interpreter: No such file or directory
assistant: the script has CRLF line endings; convert with dos2unix deploy.sh or sed -i 's/\\r$//' deploy.sh`,
    [bash('./scripts/release.sh'), bash('bash install.sh', 'bad interpreter no such file or directory')],
  ),
  s(
    'large-file-commit',
    'ml-pipeline',
    `
[Bash] git push
error: File models/weights.bin is 512.00 MB; this exceeds GitHub's file size limit of 100.00 MB
assistant: track large binaries with git lfs track "*.bin" and remove them from history before pushing`,
    [
      bash('git add models/ && git commit -m "model"'),
      bash('git push origin main', 'file exceeds file size limit 100 MB'),
    ],
  ),
];

/**
 * The same mistakes made again in later sessions, in other words: extraction keeps them as separate
 * lessons unless they are near-duplicates; evolve must fold them (dedup, abstraction) without losing a hit.
 */
const RECURRENCES = [
  [
    'jest-unbuilt-libs',
    `
[Bash] npx jest libs/auth
error: Cannot find module '@arbiter/contracts' from libs/auth/src/index.ts
assistant: build the workspace packages first with npm run build, jest resolves their dist folders`,
  ],
  [
    'jest-unbuilt-libs',
    `
[Bash] npm test -w apps/cli
error: Cannot find module '@arbiter/client' or its corresponding type declarations
assistant: the libraries were never built in this clone; npm run build once, then npm test`,
  ],
  [
    'git-push-rejected',
    `
[Bash] git push origin release
error: failed to push some refs, rejected non-fast-forward, the tip of your current branch is behind
assistant: integrate the remote first with git pull --rebase origin release, then push again`,
  ],
  [
    'git-push-rejected',
    `
[Bash] git push
error: updates were rejected because the remote contains work that you do not have locally
assistant: do not force push; run git pull --rebase and push after resolving conflicts`,
  ],
  [
    'port-in-use',
    `
[Bash] npm run dev
error: listen EADDRINUSE: address already in use 127.0.0.1:3000
assistant: port 3000 is taken by another dev server; run PORT=3002 npm run dev`,
  ],
  [
    'port-in-use',
    `
[Bash] npm start
error: Error: listen EADDRINUSE address already in use :::3000
assistant: choose another port with PORT=4000 npm start rather than killing the other process`,
  ],
  [
    'env-missing',
    `
[Bash] npm run start
error: Missing required environment variable DATABASE_URL, config validation failed
assistant: create .env from .env.example and fill DATABASE_URL, then start again`,
  ],
  [
    'env-missing',
    `
[Bash] npm run start:dev
error: config validation error, DATABASE_URL is required
assistant: the .env file is missing; cp .env.example .env and set DATABASE_URL`,
  ],
];

/** Calls that no lesson is about: intercept should stay silent. */
const UNRELATED = [
  { toolName: 'Read', toolInput: { file_path: 'docs/architecture.md' } },
  { toolName: 'Grep', toolInput: { pattern: 'TODO', path: 'src' } },
  { toolName: 'Bash', toolInput: { command: 'ls -la' } },
  { toolName: 'Write', toolInput: { file_path: 'notes/meeting.md', content: 'Agenda: roadmap, hiring' } },
  { toolName: 'Bash', toolInput: { command: 'echo hello world' } },
  { toolName: 'WebFetch', toolInput: { url: 'https://example.com/changelog' } },
  { toolName: 'Bash', toolInput: { command: 'cat README.md' } },
  { toolName: 'Read', toolInput: { file_path: 'src/utils/strings.ts' } },
];

module.exports = { SESSIONS, RECURRENCES, UNRELATED };
