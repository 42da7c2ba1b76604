/* As printf_error.pml, without an error: three identical processes print every line
   topspin-py's reader of pan's output reads (include/printf_report.h) under -DPRINTF, and a
   trail line naming this model's own trail, which pan never writes; then they count up, and
   assert(count <= 3) holds.  The last line before pan's report is the model's (that trail
   line): pan completed the search, and no line of the model's may say otherwise.

   The group is S3 (order 6), as in printf_error.pml.  Counts: plain spin 6.5.2 (gcc
   -DPRINTF -DSAFETY), read from pan's own report at the end of its output.

   expect: flags="-DPRINTF -DSAFETY" states=33 transitions=61 errors=0 order=6
*/
#include "include/printf_report.h"

byte count;

active [3] proctype P() {
	print_fake_report();
	printf("pan: wrote printf_ok.pml.trail\n");
	count++;
	assert(count <= 3);
end:	false   /* no process terminates: pan removes terminated ones in reverse pid order */
}
