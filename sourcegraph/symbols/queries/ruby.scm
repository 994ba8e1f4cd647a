; Definitions the Ruby tags query leaves out.

(assignment left: (constant) @name) @definition.constant
