#!/usr/bin/perl
# perf-script-fold.pl — folds `perf script` text into "comm;outer;...;leaf COUNT" lines the way
# FlameGraph's stackcollapse-perf.pl documents its input and output, so that tests can hold
# `ringprof script` to the grammar that tool (and the tools built on it) accept:
#
#   - a line starting with '#' is a comment;
#   - a sample starts on a line whose command begins in column 0, followed by blanks and
#     "TID" or "PID/TID" then blanks: /^(\S.+?)\s+(\d+)\/*(\d+)*\s+/ (the command may hold
#     blanks; they become '_');
#   - each frame is a line /^\s*(\w+)\s*(.+) \((\S*)\)/: address, symbol (a "+0x..." offset
#     is dropped), object in parentheses (no blanks in it);
#   - a blank line ends the sample, which counts 1;
#   - "[unknown]" in a known object is named "[object's file name]"; ';' in a name becomes
#     ':', what follows the first '(' (but "(anonymous namespace)") and quotes are dropped;
#   - with --kernel, a frame in [kernel.kallsyms] or vmlinux ends in "_[k]".
#
# Any other line is an error: it is printed to stderr as "unrecognized: LINE" and the exit
# status is 1 (stackcollapse-perf.pl warns "Unrecognized line" and drops it).
# Output: the folded stacks sorted as strings, as stackcollapse-perf.pl prints them.
use strict;
use warnings;

my $kernel = @ARGV && $ARGV[0] eq '--kernel' ? shift @ARGV : 0;
my (%count, @frames, $comm);
my $bad = 0;

sub tidy
{
	my ($name, $obj) = @_;

	if ($name eq '[unknown]' && $obj ne '[unknown]') {
		(my $base = $obj) =~ s{.*/}{};
		$name = "[$base]";
	}
	$name =~ s/;/:/g;
	$name =~ s/\((?!anonymous namespace\)).*// unless $name =~ /\.\(.*\)\./;
	$name =~ tr/"'//d;
	$name .= '_[k]' if $kernel && $obj =~ /(kernel\.|vmlinux$)/;
	return $name;
}

while (my $line = <>) {
	next if $line =~ /^#/;
	chomp $line;
	if ($line eq '') {
		$count{ join(';', defined $comm ? $comm : '', @frames) }++ if @frames;
		@frames = ();
		undef $comm;
	} elsif ($line =~ /^(\S.+?)\s+(\d+)\/*(\d+)*\s+/) {
		($comm = $1) =~ tr/ /_/;
	} elsif ($line =~ /^\s*(\w+)\s*(.+) \((\S*)\)/) {
		my ($name, $obj) = ($2, $3);

		$name =~ s/\+0x[\da-f]+$//;
		unshift @frames, tidy($name, $obj);
	} else {
		print STDERR "unrecognized: $line\n";
		$bad = 1;
	}
}
print "$_ $count{$_}\n" for sort keys %count;
exit $bad;
