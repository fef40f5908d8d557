# session21 call E (the build of call D still on the machine): a refusal
# before the launch under mpirun -np 4, three times each, lines counted
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; mpirun --version | head -1; for i in 1 2 3; do for a in "trilap-solve --bogus gen:poisson7:4" "trilap-solve --history / gen:poisson7:4" "trilap-bench --bogus" "trilap-fdtd run --grid 16 --energy-out e.csv"; do mpirun --allow-run-as-root -np 4 --oversubscribe bin/$a > /dev/null 2> /tmp/e; echo "rc=$? lines=$(grep -c '^trilap' /tmp/e) $a"; done; done
