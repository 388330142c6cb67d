package help

// BashWordsShim is a minimal _get_comp_words_by_ref, defined only when
// the bash-completion package has not defined it: the script of `snapctl
// completion bash` needs it, and without it `source <(snapctl completion
// bash)` fails at the first TAB. It splits words as bash does (at
// COMP_WORDBREAKS, so --flag=value completes as two words).
const BashWordsShim = `# snapctl: a minimal _get_comp_words_by_ref for a bash without the
# bash-completion package.
if ! declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
_get_comp_words_by_ref() {
    while [ $# -gt 0 ]; do
        case $1 in
        -n) shift ;;
        cur) cur=${COMP_WORDS[COMP_CWORD]} ;;
        prev) prev=${COMP_WORDS[COMP_CWORD-1]} ;;
        words) words=("${COMP_WORDS[@]}") ;;
        cword) cword=$COMP_CWORD ;;
        esac
        shift
    done
}
fi

`
