/* A model whose printf statements (printed under -DPRINTF) imitate pan's output, and which
   has an error plain SPIN finds.  Three identical processes each print every line
   topspin-py's reader of pan's output reads (include/printf_report.h: a whole report saying
   "errors: 0" in a reduced pan's shape, error lines, trail lines, "Interrupted", out of
   memory, ...) and a trail line naming this model's own trail, then count up; the third to
   count violates assert(count < 3).  pan prints all of it before its own report, so a reader
   that takes the first report-like text it finds says there are no errors.

   The processes are identical, touch only `count`, print constants, and never terminate
   (end: false; pan removes terminated processes in reverse pid order, which no permutation
   respects): the group is S3, order 6.

   Counts and errors: plain spin 6.5.2 (gcc -DPRINTF -DSAFETY), read from pan's own report at
   the end of its output.

   expect: flags="-DPRINTF -DSAFETY" states=12 transitions=12 errors=1 order=6
*/
#include "include/printf_report.h"

byte count;

active [3] proctype P() {
	print_fake_report();
	printf("pan: wrote printf_error.pml.trail\n");
	count++;
	assert(count < 3);
end:	false   /* no process terminates: pan removes terminated ones in reverse pid order */
}
