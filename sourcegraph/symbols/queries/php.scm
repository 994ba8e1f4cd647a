; Definitions the PHP tags query leaves out.

(method_declaration name: (name) @name) @definition.method
(enum_declaration name: (name) @name) @definition.enum
(const_element (name) @name) @definition.constant
(property_element (variable_name (name) @name)) @definition.field
