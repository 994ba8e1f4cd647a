; Definitions the C tags query leaves out, with the kinds universal-ctags
; gives them by default. @declarator: the name is the identifier inside it.
; A declaration is a variable outside function bodies (also under #if).

(preproc_def name: (identifier) @name) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.macro
(enumerator name: (identifier) @name) @definition.constant
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(union_specifier name: (type_identifier) @name body: (_)) @definition.class
(type_definition declarator: (_) @declarator) @definition.type
(field_declaration declarator: (_) @declarator) @definition.field
(declaration declarator: (_) @declarator) @definition.variable
