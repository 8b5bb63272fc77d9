/**
 * GraphQL schema documents (gqlparser/v2 parser/schema.go): type, directive and schema
 * definitions and their extensions.
 */
import type {
  GArgumentDefinition,
  GDefinition,
  GDirectiveDefinition,
  GEnumValueDefinition,
  GFieldDefinition,
  GOperationTypeDefinition,
  GSchemaDefinition,
  GSchemaDocument,
} from './ast.js';
import { Tok } from './lexer.js';
import { LOCATIONS, ParserBase } from './parser-base.js';

class SchemaParser extends ParserBase {
  schemaDocument(): GSchemaDocument {
    const doc: GSchemaDocument = { Schema: [], SchemaExtension: [], Directives: [], Definitions: [], Extensions: [] };
    while (this.peek().kind !== Tok.EOF) {
      let description = '';
      if (this.peek().kind === Tok.BlockString || this.peek().kind === Tok.String) description = this.next().value;
      const t = this.peek();
      if (t.kind !== Tok.Name) this.unexpected();
      switch (t.value) {
        case 'scalar':
        case 'type':
        case 'interface':
        case 'union':
        case 'enum':
        case 'input':
          doc.Definitions.push(this.typeDefinition(description, false));
          break;
        case 'schema':
          doc.Schema.push(this.schemaDefinition(description, false));
          break;
        case 'directive':
          doc.Directives.push(this.directiveDefinition(description));
          break;
        case 'extend':
          if (description !== '') this.unexpected(this.prev);
          this.extension(doc);
          break;
        default:
          this.unexpected();
      }
    }
    return doc;
  }

  schemaDefinition(description: string, extension: boolean): GSchemaDefinition {
    this.expectKeyword('schema');
    const def: GSchemaDefinition = {
      Description: description,
      Directives: [],
      OperationTypes: [],
      Position: this.pos(),
    };
    def.Directives = this.directives(true);
    this.some(Tok.BraceL, Tok.BraceR, () => {
      const position = this.pos();
      const op = this.next();
      if (op.value !== 'query' && op.value !== 'mutation' && op.value !== 'subscription') this.unexpected(op);
      this.expect(Tok.Colon);
      const entry: GOperationTypeDefinition = { Operation: op.value, Type: this.name(), Position: position };
      def.OperationTypes.push(entry);
    });
    if (extension && def.Directives.length === 0 && def.OperationTypes.length === 0) this.unexpected();
    return def;
  }

  /** Type definitions and, with extension set, type extensions (which must add something). */
  typeDefinition(description: string, extension: boolean): GDefinition {
    const keyword = this.peek().value;
    this.expectKeyword(keyword);
    const kinds: Record<string, string> = {
      scalar: 'SCALAR',
      type: 'OBJECT',
      interface: 'INTERFACE',
      union: 'UNION',
      enum: 'ENUM',
      input: 'INPUT_OBJECT',
    };
    const def: GDefinition = {
      Kind: kinds[keyword]!,
      Description: description,
      Name: '',
      Directives: [],
      Interfaces: [],
      Fields: [],
      Types: [],
      EnumValues: [],
      Position: this.pos(),
      BuiltIn: false,
    };
    def.Name = this.name();
    if (keyword === 'type' || (keyword === 'interface' && !extension)) def.Interfaces = this.implementsInterfaces();
    def.Directives = this.directives(!(extension && keyword === 'input'));
    let empty: boolean;
    switch (keyword) {
      case 'scalar':
        empty = def.Directives.length === 0;
        break;
      case 'type':
      case 'interface':
        this.some(Tok.BraceL, Tok.BraceR, () => def.Fields.push(this.fieldDefinition()));
        empty = def.Interfaces.length === 0 && def.Directives.length === 0 && def.Fields.length === 0;
        break;
      case 'union':
        def.Types = this.unionMembers();
        empty = def.Directives.length === 0 && def.Types.length === 0;
        break;
      case 'enum':
        this.some(Tok.BraceL, Tok.BraceR, () => def.EnumValues.push(this.enumValueDefinition()));
        empty = def.Directives.length === 0 && def.EnumValues.length === 0;
        break;
      default:
        this.some(Tok.BraceL, Tok.BraceR, () => def.Fields.push(this.inputValueDefinition()));
        empty = def.Directives.length === 0 && def.Fields.length === 0;
    }
    if (extension && empty) this.unexpected();
    return def;
  }

  extension(doc: GSchemaDocument): void {
    this.expectKeyword('extend');
    const t = this.peek();
    switch (t.value) {
      case 'schema':
        doc.SchemaExtension.push(this.schemaDefinition('', true));
        return;
      case 'scalar':
      case 'type':
      case 'interface':
      case 'union':
      case 'enum':
      case 'input':
        doc.Extensions.push(this.typeDefinition('', true));
        return;
      default:
        this.unexpected();
    }
  }

  implementsInterfaces(): string[] {
    const types: string[] = [];
    if (this.peek().value === 'implements') {
      this.next();
      this.skip(Tok.Amp);
      types.push(this.name());
      while (this.skip(Tok.Amp)) types.push(this.name());
    }
    return types;
  }

  unionMembers(): string[] {
    const types: string[] = [];
    if (this.skip(Tok.Equals)) {
      this.skip(Tok.Pipe);
      types.push(this.name());
      while (this.skip(Tok.Pipe)) types.push(this.name());
    }
    return types;
  }

  description(): string {
    const t = this.peek();
    return t.kind === Tok.BlockString || t.kind === Tok.String ? this.next().value : '';
  }

  fieldDefinition(): GFieldDefinition {
    const position = this.pos();
    const Description = this.description();
    const Name = this.name();
    const Arguments = this.argumentDefinitions();
    this.expect(Tok.Colon);
    const Type = this.typeRef();
    return {
      Description,
      Name,
      Arguments,
      DefaultValue: null,
      Type,
      Directives: this.directives(true),
      Position: position,
    };
  }

  argumentDefinitions(): GArgumentDefinition[] {
    const args: GArgumentDefinition[] = [];
    this.some(Tok.ParenL, Tok.ParenR, () => {
      const position = this.pos();
      const Description = this.description();
      const Name = this.name();
      this.expect(Tok.Colon);
      const Type = this.typeRef();
      const DefaultValue = this.skip(Tok.Equals) ? this.value(true) : null;
      args.push({ Description, Name, DefaultValue, Type, Directives: this.directives(true), Position: position });
    });
    return args;
  }

  inputValueDefinition(): GFieldDefinition {
    const position = this.pos();
    const Description = this.description();
    const Name = this.name();
    this.expect(Tok.Colon);
    const Type = this.typeRef();
    const DefaultValue = this.skip(Tok.Equals) ? this.value(true) : null;
    return {
      Description,
      Name,
      Arguments: [],
      DefaultValue,
      Type,
      Directives: this.directives(true),
      Position: position,
    };
  }

  enumValueDefinition(): GEnumValueDefinition {
    const position = this.pos();
    const Description = this.description();
    const Name = this.name();
    return { Description, Name, Directives: this.directives(true), Position: position };
  }

  directiveDefinition(description: string): GDirectiveDefinition {
    this.expectKeyword('directive');
    this.expect(Tok.At);
    const def: GDirectiveDefinition = {
      Description: description,
      Name: '',
      Arguments: [],
      Locations: [],
      IsRepeatable: false,
      Position: this.pos(),
    };
    def.Name = this.name();
    def.Arguments = this.argumentDefinitions();
    const p = this.peek();
    if (p.kind === Tok.Name && p.value === 'repeatable') {
      def.IsRepeatable = true;
      this.next();
    }
    this.expectKeyword('on');
    this.skip(Tok.Pipe);
    def.Locations.push(this.directiveLocation());
    while (this.skip(Tok.Pipe)) def.Locations.push(this.directiveLocation());
    return def;
  }

  directiveLocation(): string {
    const t = this.expect(Tok.Name);
    if (!LOCATIONS.has(t.value)) this.unexpected(t);
    return t.value;
  }
}

/** parser.ParseSchema (BuiltIn marks the prelude's definitions). */
export function parseSchema(src: string, builtIn = false): GSchemaDocument {
  const doc = new SchemaParser(src).schemaDocument();
  if (builtIn) for (const d of [...doc.Definitions, ...doc.Extensions]) d.BuiltIn = true;
  return doc;
}
