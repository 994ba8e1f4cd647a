; Definitions the Rust tags query leaves out, and kinds it does not tell apart.

(enum_item name: (type_identifier) @name) @definition.enum
(type_item name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable
(field_declaration name: (field_identifier) @name) @definition.field
(enum_variant name: (identifier) @name) @definition.constant
(function_signature_item name: (identifier) @name) @definition.method

; Not a definition: an `impl` block, whose type is the container of the definitions inside it
; (`enclosing_scopes.ts`).
(impl_item) @scope.impl
