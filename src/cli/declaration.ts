// A command of the command line as data: its name, one line of description, its arguments and
// options. Each command declares itself beside its module (commands/<name>.options.ts), and the
// type of the options its handler receives is derived from that declaration, so the help text and
// the type cannot drift apart. Light on purpose: `--help` reads every declaration and loads no
// command. main.ts alone turns declarations into commander commands (commander's one importer).

export interface OptionDeclaration<Flags extends string = string, Repeatable extends boolean = boolean> {
  /** As commander reads them: `--queue <url>` takes a value, `--fresh` is a switch. */
  readonly flags: Flags;
  readonly description: string;
  readonly defaultValue?: string;
  /** Each use adds a value (`--case a --case b`): the handler receives them all, in order. */
  readonly repeatable: Repeatable;
}

export interface ArgumentDeclaration<Name extends string = string> {
  /** `<name>` is required, `[name]` optional, `<name...>` one or more. */
  readonly name: Name;
  readonly description: string;
}

export interface CommandDeclaration<Options extends readonly OptionDeclaration[] = readonly OptionDeclaration[], Arguments extends readonly ArgumentDeclaration[] = readonly ArgumentDeclaration[]> {
  readonly name: string;
  readonly description: string;
  readonly arguments: Arguments;
  readonly options: Options;
  /** False for a command that opens no workspace (`worker`): it takes none of -C, --json, --wait, --record, --replay. */
  readonly common: boolean;
}

export const option = <const Flags extends string>(flags: Flags, description: string, defaultValue?: string): OptionDeclaration<Flags, false> => ({
  flags,
  description,
  ...(defaultValue === undefined ? {} : { defaultValue }),
  repeatable: false,
});

export const repeatableOption = <const Flags extends string>(flags: Flags, description: string): OptionDeclaration<Flags, true> => ({ flags, description, repeatable: true });

export const argument = <const Name extends string>(name: Name, description: string): ArgumentDeclaration<Name> => ({ name, description });

export function command<const Options extends readonly OptionDeclaration[], const Arguments extends readonly ArgumentDeclaration[] = readonly []>(declaration: {
  readonly name: string;
  readonly description: string;
  readonly arguments?: Arguments;
  readonly options: Options;
  readonly common?: boolean;
}): CommandDeclaration<Options, Arguments> {
  return { ...declaration, arguments: declaration.arguments ?? ([] as unknown as Arguments), common: declaration.common ?? true };
}

// The key commander gives an option: `--max-iterations <n>` is `maxIterations`, `-C <dir>` is `C`.
type Camel<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;
type FirstWord<S extends string> = S extends `${infer Word} ${string}` ? Word : S;
type KeyOf<Flags extends string> = Flags extends `${string}--${infer Long}` ? Camel<FirstWord<Long>> : Flags extends `-${infer Short}` ? FirstWord<Short> : never;
type ValueOf<O extends OptionDeclaration> = O['repeatable'] extends true ? readonly string[] : O['flags'] extends `${string}<${string}` ? string : boolean;
type ArgumentValue<Name extends string> = Name extends `${string}...${string}` ? string[] : Name extends `[${string}` ? string | undefined : string;

/** The options a command's handler receives, as commander parses them (absent when not given and without a default). */
export type OptionsOf<D extends CommandDeclaration> = { readonly [O in D['options'][number] as KeyOf<O['flags']>]?: ValueOf<O> };

type ArgumentValues<A extends readonly ArgumentDeclaration[]> = { -readonly [I in keyof A]: A[I] extends ArgumentDeclaration<infer Name> ? ArgumentValue<Name> : never };

/** The arguments a command's handler receives, in order. */
export type ArgumentsOf<D extends CommandDeclaration> = ArgumentValues<D['arguments']>;
