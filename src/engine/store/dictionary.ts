/**
 * Dictionary encoding of a string column: each distinct value gets a small integer id, rows hold ids in
 * a typed array. Id 0 is reserved for null, so "is null" is `codes[row] === 0`.
 */
export class Dictionary {
  /** values[id]; values[0] is the null slot. */
  readonly values: (string | null)[] = [null];
  private readonly ids = new Map<string, number>();

  /** A dictionary holding these values (values[0] must be the null slot), ids as their positions. */
  static of(values: readonly (string | null)[]): Dictionary {
    const dict = new Dictionary();
    for (let id = 1; id < values.length; id++) {
      const value = values[id] ?? '';
      dict.values.push(value);
      dict.ids.set(value, id);
    }
    return dict;
  }

  /** The id of `value`, adding it when new. */
  intern(value: string | null): number {
    if (value === null) return 0;
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.ids.set(value, id);
    }
    return id;
  }

  /** The id of `value`, or undefined when the column never holds it. */
  lookup(value: string): number | undefined {
    return this.ids.get(value);
  }

  value(id: number): string | null {
    return this.values[id] ?? null;
  }

  /** Number of ids including the null slot. */
  get size(): number {
    return this.values.length;
  }
}

export type Codes = Uint16Array | Uint32Array;

/** A dictionary-encoded column. */
export interface CategoricalColumn {
  dict: Dictionary;
  codes: Codes;
}

/** Packs ids into the narrowest typed array that holds them. */
export function packCodes(ids: ArrayLike<number>, dictionarySize: number): Codes {
  return dictionarySize <= 0xffff ? Uint16Array.from(ids) : Uint32Array.from(ids);
}
