#!/bin/sh
# The shell completions (contrib/completions) against --help: bash is sourced
# in a bash subshell and its function called with COMP_WORDS for each command,
# and must offer every flag of that command's --help, the commands, and for
# --gpu the indices `--list-gpus` prints (a stand-in binary lists two GPUs).
# fish, where installed, is asked (complete -C) for each command's flags,
# otherwise its file must name each; zsh's file must name each flag and, where
# zsh is installed, parse (zsh -n): its completion system needs a terminal.
set -u
bin=$1
dir=$2
fail=0
t=$(mktemp -d /tmp/gtm-comp-XXXXXX)
trap 'rm -rf "$t"' EXIT
flags_of() { # the options of `gputaskman $1 --help`: its lines "  -x, --xx VALUE   meaning"
	"$bin" $1 --help | sed -n 's/^  \(-[^ ,]*\)\(, \(-[^ ]*\)\)\{0,1\}.*/\1 \3/p' | tr ' ' '\n' | grep -vxe '-' -e '' | sort -u
}
bash_complete() { # words... : what bash offers for the last word
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gputaskman; printf "%s\n" "${COMPREPLY[@]}"' \
		sh "$dir/gputaskman.bash" "$@"
}
for cmd in "" inspect diff record replay serve; do
	offered=$(bash_complete gputaskman $cmd -)
	fish_offered=
	command -v fish >/dev/null && fish_offered=$(fish -c ". '$dir/gputaskman.fish'; complete -C 'gputaskman $cmd -'" | cut -f1)
	list=$(flags_of "$cmd")
	for f in $list; do
		printf '%s\n' "$offered" | grep -qxe "$f" || { echo "FAIL bash: 'gputaskman $cmd -<TAB>' lacks $f"; fail=1; }
		grep -q -- "$f\\b" "$dir/_gputaskman" || { echo "FAIL zsh: _gputaskman lacks $f ($cmd)"; fail=1; }
		long=${f#--}
		if [ "$long" != "$f" ]; then pat="-l $long\\b"; else pat="-s ${f#-}\\b"; fi
		if [ "$f" = "--" ]; then :
		elif [ -n "$fish_offered" ]; then
			printf '%s\n' "$fish_offered" | grep -qxe "$f" || { echo "FAIL fish: 'gputaskman $cmd -<TAB>' lacks $f"; fail=1; }
		else
			grep -q -- "$pat" "$dir/gputaskman.fish" || { echo "FAIL fish: gputaskman.fish lacks $f ($cmd)"; fail=1; }
		fi
	done
	echo "ok   'gputaskman $cmd -<TAB>' checked against: $(echo $list)"
done
cmds=$(bash_complete gputaskman "")
for c in inspect diff record replay serve; do
	printf '%s\n' "$cmds" | grep -qx "$c" || { echo "FAIL bash: no command $c"; fail=1; }
	grep -q "$c" "$dir/_gputaskman" && grep -q "$c" "$dir/gputaskman.fish" || { echo "FAIL zsh/fish: no command $c"; fail=1; }
done
# --gpu: the indices of a machine with two GPUs
printf '#!/bin/sh\n[ "$1" = --list-gpus ] && printf "0  NVIDIA  NVIDIA H100  0000:01:00.0  80.0 GiB\\n1  AMD     Radeon  0000:02:00.0  16.0 GiB\\n"\n' >"$t/fake"
chmod +x "$t/fake"
got=$(bash_complete "$t/fake" --gpu "" | tr '\n' ' ')
[ "$got" = "0 1 " ] && echo "ok   bash --gpu offers 0 1" || { echo "FAIL bash --gpu offered '$got'"; fail=1; }
got=$(bash_complete "$t/fake" record --gpu 1 | tr '\n' ' ')
[ "$got" = "1 " ] && echo "ok   bash record --gpu 1<TAB> offers 1" || { echo "FAIL bash record --gpu 1 offered '$got'"; fail=1; }
if command -v fish >/dev/null; then
	mkdir "$t/bin" && cp "$t/fake" "$t/bin/gputaskman"
	got=$(PATH="$t/bin:$PATH" fish -c ". '$dir/gputaskman.fish'; complete -C 'gputaskman --gpu '" | cut -f1 | tr '\n' ' ')
	[ "$got" = "0 1 " ] && echo "ok   fish --gpu offers 0 1" || { echo "FAIL fish --gpu offered '$got'"; fail=1; }
fi
# the real binary here has no GPU: nothing is offered, and nothing breaks
got=$(bash_complete "$bin" --gpu "")
[ -z "$got" ] && echo "ok   bash --gpu without a GPU offers nothing" || { echo "FAIL bash --gpu without a GPU: '$got'"; fail=1; }
for sh in zsh fish; do
	command -v $sh >/dev/null || echo "skip $sh: not installed, its file was checked for the flags only"
	command -v $sh >/dev/null && [ $sh = fish ] && echo "ok   fish offered the flags itself"
done
command -v zsh >/dev/null && { zsh -n "$dir/_gputaskman" || { echo "FAIL zsh -n"; fail=1; }; }
command -v fish >/dev/null && { fish -n "$dir/gputaskman.fish" || { echo "FAIL fish -n"; fail=1; }; }
exit $fail
