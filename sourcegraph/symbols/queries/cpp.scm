; Definitions the C++ tags query leaves out (beside those of c.scm).

(namespace_definition name: (namespace_identifier) @name) @definition.module
(alias_declaration name: (type_identifier) @name) @definition.type
(function_definition declarator: (function_declarator declarator: (destructor_name) @name)) @definition.method
(function_definition declarator: (function_declarator declarator: (qualified_identifier) @qualified)) @definition.method
(function_definition declarator: (_ (function_declarator declarator: (qualified_identifier) @qualified))) @definition.method
(function_definition declarator: (function_declarator declarator: (operator_name) @name)) @definition.method
(struct_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.class
(class_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.class
