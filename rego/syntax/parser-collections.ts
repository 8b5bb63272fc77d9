/**
 * Collections: arrays, sets, objects and their comprehensions. Ambiguities are resolved as OPA
 * does: `{a | b}` is a set comprehension, not a set holding `a | b`.
 */
import type { Location } from '../errors.js';
import type { Expr, Term } from './ast.js';
import type { Tok } from './tokens.js';
import { ScalarParser } from './parser-scalars.js';

export abstract class CollectionParser extends ScalarParser {
  protected abstract parseBody(end: Tok): Expr[] | undefined;
  abstract parseTerm(): Term | undefined;
  protected abstract parseTermInfixCallInList(): Term | undefined;

  protected parseArray(): Term | undefined {
    if (!this.enter()) return undefined;
    try {
      const loc = this.loc();
      this.scan();
      if (this.t() === ']') return { type: 'array', items: [], loc };
      let potentialComprehension = true;
      if (this.t() === ',') {
        potentialComprehension = false;
        this.scan();
      }
      const st = this.save();
      const head = this.parseTerm();
      if (head === undefined) return undefined;
      switch (this.t()) {
        case ']':
          return { type: 'array', items: [head], loc };
        case ',': {
          this.scan();
          const items = this.parseTermList(']', [head]);
          return items && { type: 'array', items, loc };
        }
        case '|':
          if (potentialComprehension) {
            const st2 = this.save();
            this.scan();
            const body = this.parseBody(']');
            if (body !== undefined) return { type: 'arraycompr', head, body, loc };
            if (this.t() !== ',') return undefined;
            this.restore(st2);
          }
      }
      this.restore(st);
      const items = this.parseTermList(']', []);
      return items && { type: 'array', items, loc };
    } finally {
      this.leave();
    }
  }

  protected parseSetOrObject(): Term | undefined {
    if (!this.enter()) return undefined;
    try {
      const loc = this.loc();
      this.scan();
      if (this.t() === '}') return { type: 'object', items: [], loc };
      let potentialComprehension = true;
      if (this.t() === ',') {
        potentialComprehension = false;
        this.scan();
      }
      const st = this.save();
      let head = this.parseTerm();
      if (head === undefined) return undefined;
      switch (this.t()) {
        case '|':
          if (potentialComprehension) return this.parseSet(st, head, true, loc);
          break;
        case '}':
        case ',':
          return this.parseSet(st, head, potentialComprehension, loc);
        case ':':
          return this.parseObject(head, potentialComprehension, loc);
      }
      this.restore(st);
      head = this.parseTermInfixCallInList();
      if (head === undefined) return undefined;
      switch (this.t()) {
        case '}':
        case ',':
          return this.parseSet(st, head, false, loc);
        case ':':
          return this.parseObject(head, potentialComprehension, loc);
      }
      this.illegal('non-terminated set');
      return undefined;
    } finally {
      this.leave();
    }
  }

  protected parseSet(
    st: ReturnType<typeof this.save>,
    head: Term,
    potentialComprehension: boolean,
    loc: Location,
  ): Term | undefined {
    switch (this.t()) {
      case '}':
        return { type: 'set', items: [head], loc };
      case ',': {
        this.scan();
        const items = this.parseTermList('}', [head]);
        return items && { type: 'set', items, loc };
      }
      case '|': {
        if (potentialComprehension) {
          this.scan();
          const body = this.parseBody('}');
          if (body !== undefined) return { type: 'setcompr', head, body, loc };
          if (this.t() !== ',') return undefined;
        }
        this.restore(st);
        const items = this.parseTermList('}', []);
        return items && { type: 'set', items, loc };
      }
    }
    return undefined;
  }

  protected parseObject(key: Term, potentialComprehension: boolean, loc: Location): Term | undefined {
    this.scan(); // over ':'
    const st = this.save();
    const v = this.parseTerm();
    if (v === undefined) return undefined;
    let potentialRelation = true;
    if (potentialComprehension) {
      if (this.t() === '}' || this.t() === ',' || this.t() === '|') {
        if (this.t() !== '|') potentialRelation = false;
        const t = this.parseObjectFinish(key, v, true, loc);
        if (t !== undefined) return t;
      }
    }
    this.restore(st);
    if (potentialRelation) {
      const v2 = this.parseTermInfixCallInList();
      if (v2 === undefined) return undefined;
      if (this.t() === '}' || this.t() === ',') return this.parseObjectFinish(key, v2, false, loc);
    }
    this.illegal('non-terminated object');
    return undefined;
  }

  protected parseObjectFinish(key: Term, val: Term, potentialComprehension: boolean, loc: Location): Term | undefined {
    switch (this.t()) {
      case '}':
        return { type: 'object', items: [[key, val]], loc };
      case '|':
        if (potentialComprehension) {
          this.scan();
          const body = this.parseBody('}');
          if (body !== undefined) return { type: 'objectcompr', key, value: val, body, loc };
        } else this.illegal('non-terminated object');
        return undefined;
      case ',': {
        this.scan();
        const items = this.parseTermPairList('}', [[key, val]]);
        return items && { type: 'object', items, loc };
      }
    }
    return undefined;
  }

  protected parseTermList(end: Tok, r: Term[]): Term[] | undefined {
    if (this.t() === end) return r;
    for (;;) {
      const t = this.parseTermInfixCallInList();
      if (t === undefined) return undefined;
      r.push(t);
      if (this.t() === end) return r;
      if (this.t() === ',') {
        this.scan();
        if (this.t() === end) return r;
        continue;
      }
      this.illegal(`expected "," or "${end}"`);
      return undefined;
    }
  }

  protected parseTermPairList(end: Tok, r: [Term, Term][]): [Term, Term][] | undefined {
    if (this.t() === end) return r;
    for (;;) {
      const k = this.parseTermInfixCallInList();
      if (k === undefined) return undefined;
      if (this.t() !== ':') {
        this.illegal('expected ":"');
        return undefined;
      }
      this.scan();
      const v = this.parseTermInfixCallInList();
      if (v === undefined) return undefined;
      r.push([k, v]);
      if (this.t() === end) return r;
      if (this.t() === ',') {
        this.scan();
        if (this.t() === end) return r;
        continue;
      }
      this.illegal(`expected "," or "${end}"`);
      return undefined;
    }
  }
}
