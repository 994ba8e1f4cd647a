; Definitions the TypeScript and JavaScript tags queries leave out.

(enum_declaration name: (identifier) @name) @definition.enum
(type_alias_declaration name: (type_identifier) @name) @definition.type
(public_field_definition name: (property_identifier) @name) @definition.field
(property_signature name: (property_identifier) @name) @definition.field
(internal_module name: (identifier) @name) @definition.module
