; Definitions the Python tags query leaves out.

(expression_statement (assignment left: (identifier) @name) @definition.variable)
(class_definition body: (block (expression_statement (assignment left: (identifier) @name) @definition.field)))
