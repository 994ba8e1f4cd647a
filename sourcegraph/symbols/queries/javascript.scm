; Definitions the JavaScript tags query leaves out (TypeScript uses them too).

(method_definition name: (property_identifier) @name) @definition.method
(class_declaration name: (_) @name) @definition.class
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable)))
