/**
 * Lists the long functions of the given directories (default `src`) with the TypeScript
 * compiler's parser: every function declaration, method, constructor, accessor, function
 * expression and arrow function spanning more than `--max` lines (default 80, counted from the
 * line of its start to the line of its end), longest first, then the counts. A function
 * nested in a long one is listed on its own when it is long too. Report only: always exits 0.
 *
 *   npx tsx scripts/long-functions.ts [--max 80] [dir …]
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One long function: where it is, its name (or `<anonymous>`) and its length in lines. */
interface LongFunction {
  file: string;
  line: number;
  name: string;
  lines: number;
}

/** Every `.ts` file under `dir` (node_modules and generated client schema excluded), sorted. */
function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist') out.push(...tsFiles(full));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out.sort();
}

/** The name a function is known by: its own, its variable's or property's, else `<anonymous>`. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))) return node.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && (ts.isIdentifier(parent.name) || ts.isStringLiteral(parent.name))) return parent.name.text;
  return '<anonymous>';
}

/** The functions of one file spanning more than `max` lines. */
function longFunctions(file: string, max: number): LongFunction[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const start = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      if (end - start + 1 > max) out.push({ file, line: start + 1, name: nameOf(fn), lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

const args = process.argv.slice(2);
const maxAt = args.indexOf('--max');
const max = maxAt >= 0 ? Number(args.splice(maxAt, 2)[1]) : 80;
const dirs = args.length > 0 ? args : ['src'];
const found = dirs.flatMap((d) => tsFiles(d)).flatMap((f) => longFunctions(f, max));
found.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
for (const f of found) console.log(`${String(f.lines).padStart(5)}  ${f.file}:${f.line}  ${f.name}`);
console.log(`${found.length} function(s) over ${max} lines in ${new Set(found.map((f) => f.file)).size} file(s) of ${dirs.join(', ')}`);
