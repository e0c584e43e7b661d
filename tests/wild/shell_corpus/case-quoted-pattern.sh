# source: issue 21 item 2 (minimal trigger, a license check in a build script)
x=$(head -3 LICENSE)
case $x in *"Copyright (c) "*) ;; esac
python -m sglang.launch_server --model-path /models/DeepSeek-V3 --tp-size 16 --enable-dp-attention
