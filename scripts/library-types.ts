// The library's published types (lib/index.d.mts), generated from src/api.ts with the TypeScript
// compiler: each function and interface src/api.ts exports, and every type of ours they name
// (the decision, the outcome of a release, a person's change, …), written out in full. The result
// stands alone: it names no file of src/ and no zod, so a program reads the types it is given at
// run time. test/unit/library-types.test.ts fails when the committed file differs;
// `npx tsx scripts/write-library-types.ts` rewrites it.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const entry = path.join(root, 'src', 'api.ts');

const HEADER = `// Generated from src/api.ts by scripts/write-library-types.ts: edit the source, then run
// \`npx tsx scripts/write-library-types.ts\`. test/unit/library-types.test.ts fails when this file is stale.
`;

function compilerOptions(): ts.CompilerOptions {
  const file = path.join(root, 'tsconfig.json');
  const read = ts.readConfigFile(file, (name) => ts.sys.readFile(name));
  return ts.parseJsonConfigFileContent(read.config, ts.sys, root).options;
}

/** A type is ours when it is declared in src/: it is written out under its name. */
const isOurs = (symbol: ts.Symbol | undefined): symbol is ts.Symbol =>
  symbol?.declarations?.some((d) => path.resolve(d.getSourceFile().fileName).startsWith(path.join(root, 'src') + path.sep)) ?? false;

/** The declaration's own doc comment, as written (the checker's reading stops at a tag: "decision@2" is not one). */
function docComment(symbol: ts.Symbol, indent: string): string {
  const declaration = symbol.declarations?.[0];
  const doc = declaration && ts.getJSDocCommentsAndTags(declaration).filter(ts.isJSDoc).at(-1);
  if (!doc) return '';
  return `${doc.getText().split('\n').map((line, i) => (i === 0 ? `${indent}${line.trim()}` : `${indent} ${line.trim()}`)).join('\n')}\n`;
}

const isReadonly = (symbol: ts.Symbol): boolean =>
  symbol.declarations?.some((d) => ts.canHaveModifiers(d) && (ts.getModifiers(d) ?? []).some((m) => m.kind === ts.SyntaxKind.ReadonlyKeyword)) ?? false;

export function libraryTypes(): string {
  const program = ts.createProgram([entry], compilerOptions());
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`cannot read ${entry}`);

  // An object type that a type alias of ours names (`type GateDecision = z.infer<…>`) loses the
  // alias where it is used: found again by identity, the checker's types being interned.
  const aliasOf = new Map<ts.Type, ts.Symbol>();
  for (const file of program.getSourceFiles()) {
    if (!path.resolve(file.fileName).startsWith(path.join(root, 'src') + path.sep)) continue;
    for (const statement of file.statements) {
      if (!ts.isTypeAliasDeclaration(statement) || statement.typeParameters) continue;
      const symbol = checker.getSymbolAtLocation(statement.name);
      const type = symbol && checker.getDeclaredTypeOfSymbol(symbol);
      if (symbol && type && type.flags & ts.TypeFlags.Object && !aliasOf.has(type)) aliasOf.set(type, symbol);
    }
  }
  /** Named types of ours still to write out, in the order they were first named. */
  const named = new Map<string, ts.Type | null>();
  const name = (type: ts.Type, symbol: ts.Symbol): string => {
    const written = symbol.getName();
    if (!named.has(written)) named.set(written, type);
    return written;
  };

  /** `definition`: the type being defined, written out rather than named; `optional`: a property's, whose `undefined` the `?` says. */
  const print = (type: ts.Type, indent: string, how: { readonly definition?: boolean; readonly optional?: boolean } = {}): string => {
    const alias = type.aliasSymbol && isOurs(type.aliasSymbol) && !type.aliasTypeArguments ? type.aliasSymbol : aliasOf.get(type);
    if (!how.definition && alias) return name(type, alias);
    const symbol = type.getSymbol();
    if (!how.definition && symbol && isOurs(symbol) && type.isClassOrInterface()) return name(type, symbol);
    if (type.isUnion()) {
      const members = how.optional ? type.types.filter((t) => !(t.flags & ts.TypeFlags.Undefined)) : type.types;
      // `true | false` is how the checker holds boolean.
      const booleans = members.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral);
      const rest = members.filter((t) => !(t.flags & ts.TypeFlags.BooleanLiteral)).map((t) => print(t, indent));
      // null last, as it is written by hand (the checker orders by creation).
      const isNull = (text: string) => text === 'null';
      const all = [...rest, ...(booleans.length === 2 ? ['boolean'] : booleans.map((t) => checker.typeToString(t)))];
      return [...all.filter((t) => !isNull(t)), ...all.filter(isNull)].join(' | ');
    }
    if (type.isIntersection()) return type.types.map((t) => print(t, indent)).join(' & ');
    if (checker.isArrayType(type)) {
      const element = print(checker.getTypeArguments(type as ts.TypeReference)[0] as ts.Type, indent);
      const readonly = type.getSymbol()?.getName() === 'ReadonlyArray' ? 'readonly ' : '';
      return `${readonly}${/[ |&]/.test(element) && !element.startsWith('{') ? `(${element})` : element}[]`;
    }
    if (type.flags & ts.TypeFlags.Object && symbol && (symbol.flags & ts.SymbolFlags.TypeLiteral || symbol.getName() === '__type' || symbol.getName() === '__object')) {
      return objectLiteral(type, indent);
    }
    const reference = type as ts.TypeReference;
    if (type.flags & ts.TypeFlags.Object && reference.target && checker.getTypeArguments(reference).length > 0) {
      return `${checker.typeToString(reference.target).replace(/<.*$/, '')}<${checker.getTypeArguments(reference).map((t) => print(t, indent)).join(', ')}>`;
    }
    if (type.flags & ts.TypeFlags.Object && !symbol?.declarations?.some((d) => d.getSourceFile().isDeclarationFile)) return objectLiteral(type, indent);
    return checker.typeToString(type, undefined, ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseFullyQualifiedType);
  };

  const members = (type: ts.Type, indent: string, inherited: readonly ts.Type[] = []): string => {
    const lines: string[] = [];
    for (const index of checker.getIndexInfosOfType(type)) lines.push(`${indent}readonly [key: ${checker.typeToString(index.keyType)}]: ${print(index.type, indent)};`);
    for (const property of checker.getPropertiesOfType(type)) {
      if (inherited.some((base) => checker.getPropertyOfType(base, property.getName()))) continue;
      const optional = (property.flags & ts.SymbolFlags.Optional) !== 0;
      const value = print(checker.getTypeOfSymbol(property), indent, { optional });
      lines.push(`${docComment(property, indent)}${indent}${isReadonly(property) ? 'readonly ' : ''}${property.getName()}${optional ? '?' : ''}: ${value};`);
    }
    return lines.join('\n');
  };
  const objectLiteral = (type: ts.Type, indent: string): string => {
    const inner = members(type, `${indent}  `);
    return inner ? `{\n${inner}\n${indent}}` : '{}';
  };

  const out: string[] = [];
  const functions: string[] = [];
  for (const exported of checker.getExportsOfModule(module)) {
    const declaration = exported.declarations?.[0];
    if (!declaration) continue;
    const type = checker.getTypeOfSymbolAtLocation(exported, declaration);
    const signature = checker.getSignaturesOfType(type, ts.SignatureKind.Call)[0];
    if (exported.flags & ts.SymbolFlags.Interface) {
      named.set(exported.getName(), checker.getDeclaredTypeOfSymbol(exported));
    } else if (signature) {
      const parameters = signature.getParameters().map((p) => `${p.getName()}: ${print(checker.getTypeOfSymbolAtLocation(p, declaration), '')}`);
      functions.push(`${docComment(exported, '')}export function ${exported.getName()}(${parameters.join(', ')}): ${print(signature.getReturnType(), '')};`);
    }
  }
  // Writing a type may name more: write until none is left.
  const written = new Set<string>();
  for (let pending = [...named.keys()]; pending.length > 0; pending = [...named.keys()].filter((n) => !written.has(n))) {
    for (const typeName of pending) {
      written.add(typeName);
      const type = named.get(typeName) as ts.Type;
      const symbol = type.aliasSymbol ?? type.getSymbol();
      const doc = symbol ? docComment(symbol, '') : '';
      if (type.isClassOrInterface()) {
        // A base of ours is named (`RunOptions extends WorkspaceOptions`); another one is written out.
        const bases = (checker.getBaseTypes(type as ts.InterfaceType) ?? []).filter((base) => isOurs(base.getSymbol()));
        const heritage = bases.length > 0 ? ` extends ${bases.map((base) => print(base, '')).join(', ')}` : '';
        out.push(`${doc}export interface ${typeName}${heritage} {\n${members(type, '  ', bases)}\n}`);
      } else {
        out.push(`${doc}export type ${typeName} = ${print(type, '', { definition: true })};`);
      }
    }
  }
  return `${HEADER}\n${[...out, ...functions].join('\n\n')}\n`;
}
