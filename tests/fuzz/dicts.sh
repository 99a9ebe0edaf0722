# The libFuzzer dictionary of each fuzz target (a file in tests/fuzz, or nothing):
# sourced by tests/fuzz/run_libfuzzer.sh and tools/fuzz-long.sh.
fuzz_dict() {
	case $1 in
	load|pipeline) echo onnx.dict ;;
	ir) echo ir.dict ;;
	tensor) echo tensor.dict ;;
	esac
}
