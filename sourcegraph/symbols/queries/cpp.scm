; Definitions the C++ tags query leaves out (beside those of c.scm).

(namespace_definition name: (namespace_identifier) @name) @definition.module
(alias_declaration name: (type_identifier) @name) @definition.type
(declaration_list (declaration declarator: (_) @declarator) @definition.variable)
