#!/usr/bin/env bash
# Puts the shipped model's lineage (train/nano/checkpoints.md) into the training cache, out of the
# last commit that held it in git (train/checkpoints/ until issue 46): each NAME/ (default: all
# nine, 96 MB) into $CHECKPOINTS/NAME/ (train/common/cache_env.sh). Files already there with the
# commit's content are kept, others written (via NAME/FILE.part, then renamed). In a shallow
# clone that commit is fetched first, alone (git fetch --depth 1 REMOTE COMMIT; ~95 MB).
#   train/nano/restore_checkpoints.sh [--list] [NAME ...]      Env: REMOTE (origin)
set -euo pipefail
cd "$(dirname "$0")/.."
. train/common/cache_env.sh  # CHECKPOINTS
COMMIT=fddba9649599ec0b25b1875749e2ca7e6f9ea546  # the last change to train/checkpoints/ (ka shipped)
REMOTE=${REMOTE:-origin}

if ! git cat-file -e "$COMMIT^{commit}" 2>/dev/null; then
  echo "restore_checkpoints: fetching ${COMMIT:0:12} from $REMOTE (the commit that holds them)" >&2
  git fetch --quiet --depth 1 "$REMOTE" "$COMMIT"
fi
all=$(git ls-tree -d --name-only "$COMMIT:train/checkpoints")

if [ "${1:-}" = --list ]; then
  for name in $all; do
    git ls-tree -r -l "$COMMIT:train/checkpoints/$name" |
      awk -v n="$name" '{ b += $4 } END { printf "%-12s %6.1f MB\n", n, b / 1e6 }'
  done
  exit 0
fi
[ $# -gt 0 ] || set -- $all
for name in "$@"; do
  if ! grep -qxF -- "$name" <<<"$all"; then
    echo "restore_checkpoints: no checkpoint '$name' (one of: $(echo $all))" >&2
    exit 2
  fi
done

for name in "$@"; do
  wrote=0 kept=0
  while read -r _ _ blob path; do
    dest=$CHECKPOINTS/$name/$path
    if [ -f "$dest" ] && [ "$(git hash-object "$dest")" = "$blob" ]; then
      kept=$((kept + 1))
      continue
    fi
    mkdir -p "$(dirname "$dest")"
    git cat-file blob "$blob" >"$dest.part"
    mv "$dest.part" "$dest"
    wrote=$((wrote + 1))
  done < <(git ls-tree -r "$COMMIT:train/checkpoints/$name")
  echo "$CHECKPOINTS/$name: $wrote written, $kept already there"
done
