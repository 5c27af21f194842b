#!/bin/sh
# The shell completions (contrib/completions) against --help: bash is sourced
# in a bash subshell and its function called with COMP_WORDS for each command,
# and must offer every flag of that command's --help, the commands, and for
# --gpu the indices `--list-gpus` prints (a stand-in binary lists two GPUs).
# zsh and fish run only where installed; otherwise their files must name every flag.
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
	list=$(flags_of "$cmd")
	for f in $list; do
		printf '%s\n' "$offered" | grep -qxe "$f" || { echo "FAIL bash: 'gputaskman $cmd -<TAB>' lacks $f"; fail=1; }
		grep -q -- "$f\\b" "$dir/_gputaskman" || { echo "FAIL zsh: _gputaskman lacks $f ($cmd)"; fail=1; }
		long=${f#--}
		if [ "$long" != "$f" ]; then pat="-l $long\\b"; else pat="-s ${f#-}\\b"; fi
		[ "$f" = "--" ] || grep -q -- "$pat" "$dir/gputaskman.fish" || { echo "FAIL fish: gputaskman.fish lacks $f ($cmd)"; fail=1; }
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
# the real binary here has no GPU: nothing is offered, and nothing breaks
got=$(bash_complete "$bin" --gpu "")
[ -z "$got" ] && echo "ok   bash --gpu without a GPU offers nothing" || { echo "FAIL bash --gpu without a GPU: '$got'"; fail=1; }
for sh in zsh fish; do
	command -v $sh >/dev/null || echo "skip $sh: not installed, its file was checked for the flags only"
done
command -v zsh >/dev/null && { zsh -n "$dir/_gputaskman" || { echo "FAIL zsh -n"; fail=1; }; }
command -v fish >/dev/null && { fish -n "$dir/gputaskman.fish" || { echo "FAIL fish -n"; fail=1; }; }
exit $fail
