/**
 * GraphQL query documents (gqlparser/v2 parser/query.go): operations, fragments, selections.
 */
import type {
  GField,
  GFragmentDefinition,
  GInlineFragment,
  GOperation,
  GQueryDocument,
  GSelection,
  GVariableDefinition,
} from './ast.js';
import { Tok, kindText } from './lexer.js';
import { ParserBase } from './parser-base.js';

export { GqlError } from './parser-base.js';
export { parseSchema } from './parser-schema.js';

class QueryParser extends ParserBase {
  queryDocument(): GQueryDocument {
    const doc: GQueryDocument = { Operations: [], Fragments: [] };
    for (let t = this.peek(); t.kind !== Tok.EOF; t = this.peek()) {
      if (t.kind === Tok.Name && (t.value === 'query' || t.value === 'mutation' || t.value === 'subscription')) {
        doc.Operations.push(this.operation());
      } else if (t.kind === Tok.Name && t.value === 'fragment') doc.Fragments.push(this.fragmentDefinition());
      else if (t.kind === Tok.BraceL) doc.Operations.push(this.operation());
      else this.unexpected();
    }
    return doc;
  }

  operation(): GOperation {
    const position = this.pos();
    if (this.peek().kind === Tok.BraceL) {
      return {
        Operation: 'query',
        Name: '',
        VariableDefinitions: [],
        Directives: [],
        SelectionSet: this.requiredSelectionSet(),
        Position: position,
      };
    }
    const Operation = this.next().value;
    const Name = this.peek().kind === Tok.Name ? this.next().value : '';
    const VariableDefinitions = this.variableDefinitions();
    const Directives = this.directives(false);
    return {
      Operation,
      Name,
      VariableDefinitions,
      Directives,
      SelectionSet: this.requiredSelectionSet(),
      Position: position,
    };
  }

  variableDefinitions(): GVariableDefinition[] {
    const defs: GVariableDefinition[] = [];
    this.many(Tok.ParenL, Tok.ParenR, () => {
      const position = this.pos();
      const Variable = this.variable();
      this.expect(Tok.Colon);
      const Type = this.typeRef();
      const DefaultValue = this.skip(Tok.Equals) ? this.value(true) : null;
      defs.push({ Variable, Type, DefaultValue, Directives: this.directives(false), Used: false, Position: position });
    });
    return defs;
  }

  requiredSelectionSet(): GSelection[] {
    const t = this.peek();
    if (t.kind !== Tok.BraceL) this.fail(t, `Expected ${kindText(Tok.BraceL)}, found ${kindText(t.kind)}`);
    return this.optionalSelectionSet();
  }

  optionalSelectionSet(): GSelection[] {
    return this.nested(() => {
      const out: GSelection[] = [];
      this.some(Tok.BraceL, Tok.BraceR, () =>
        out.push(this.peek().kind === Tok.Spread ? this.fragment() : this.field()),
      );
      return out;
    });
  }

  field(): GField {
    const position = this.pos();
    const Alias = this.name();
    const Name = this.skip(Tok.Colon) ? this.name() : Alias;
    const Arguments = this.arguments(false);
    const Directives = this.directives(false);
    const SelectionSet = this.peek().kind === Tok.BraceL ? this.optionalSelectionSet() : [];
    return { kind: 'field', Alias, Name, Arguments, Directives, SelectionSet, Position: position };
  }

  fragment(): GSelection {
    this.expect(Tok.Spread);
    const position = this.pos();
    const p = this.peek();
    if (p.kind === Tok.Name && p.value !== 'on') {
      return { kind: 'spread', Name: this.fragmentName(), Directives: this.directives(false), Position: position };
    }
    const def: GInlineFragment = {
      kind: 'inline',
      TypeCondition: '',
      Directives: [],
      SelectionSet: [],
      Position: position,
    };
    // NB: gqlparser compares only the token value here, whatever the token kind.
    if (this.peek().value === 'on') {
      this.next();
      def.TypeCondition = this.name();
    }
    def.Directives = this.directives(false);
    def.SelectionSet = this.requiredSelectionSet();
    return def;
  }

  fragmentDefinition(): GFragmentDefinition {
    const position = this.pos();
    this.expectKeyword('fragment');
    const Name = this.fragmentName();
    const VariableDefinition = this.variableDefinitions();
    this.expectKeyword('on');
    const TypeCondition = this.name();
    const Directives = this.directives(false);
    return {
      Name,
      VariableDefinition,
      TypeCondition,
      Directives,
      SelectionSet: this.requiredSelectionSet(),
      Position: position,
    };
  }

  fragmentName(): string {
    if (this.peek().value === 'on') this.unexpected();
    return this.name();
  }
}

/** parser.ParseQuery */
export function parseQuery(src: string): GQueryDocument {
  return new QueryParser(src).queryDocument();
}
