# bench_generate.svg and bench_generate.png, written by attnzoo; rerun with `gnuplot bench_generate.gp` in this folder.
$g0 << EOD
1024 9483.19 1088
4096 1447.06 4160
16384 373.264 16448
EOD
$g1 << EOD
1024 4460.88 1088
4096 1146.28 4160
16384 561.615 16448
EOD
$g2 << EOD
1024 27116.4 65
4096 27276.2 65
16384 27112.2 65
EOD
$g3 << EOD
1024 32215.8 257
4096 32178 257
16384 30323.7 257
EOD
$g4 << EOD
1024 26565 129
4096 26288.6 129
16384 27557.9 129
EOD
$g5 << EOD
1024 29783.6 8.5
4096 18965.8 8.5
16384 26933.5 8.5
EOD
$g6 << EOD
1024 19475.6 23.375
4096 17829.2 23.375
16384 8604.53 23.375
EOD
$g7 << EOD
1024 13629.6 68
4096 3776.14 68
16384 12803.8 68
EOD
$g8 << EOD
1024 5661.87 544
4096 659.531 2080
16384 253.439 8224
EOD

set terminal svg size 1000,420 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'bench_generate.svg'
set multiplot layout 1,2 title "generation: one token at context length C (dim 64, 2 layers, random weights)"
set logscale xy
set xtics ("1K" 1024, "4K" 4096, "16K" 16384)
set xrange [716.8:22937.6]
set grid
set xlabel 'context length C'
set bmargin 7
set key at screen 0.5, screen 0.01 center bottom horizontal maxcols 5 Left reverse samplen 2 font ',9'
set ylabel 'tokens per second'
plot $g0 using 1:2 with linespoints lw 2 pt 4 lc rgb '#1f77b4' title "full", $g1 using 1:2 with linespoints lw 2 pt 5 lc rgb '#ff7f0e' title "flash", $g2 using 1:2 with linespoints lw 2 pt 6 lc rgb '#2ca02c' title "local", $g3 using 1:2 with linespoints lw 2 pt 7 lc rgb '#d62728' title "strided", $g4 using 1:2 with linespoints lw 2 pt 8 lc rgb '#9467bd' title "longformer", $g5 using 1:2 with linespoints lw 2 pt 9 lc rgb '#8c564b' title "linear", $g6 using 1:2 with linespoints lw 2 pt 10 lc rgb '#e377c2' title "performer", $g7 using 1:2 with linespoints lw 2 pt 11 lc rgb '#7f7f7f' title "rfa", $g8 using 1:2 with linespoints lw 2 pt 12 lc rgb '#bcbd22' title "synthesizer"
set ylabel 'decoding state (KB)'
unset key
plot $g0 using 1:3 with linespoints lw 2 pt 4 lc rgb '#1f77b4' notitle, $g1 using 1:3 with linespoints lw 2 pt 5 lc rgb '#ff7f0e' notitle, $g2 using 1:3 with linespoints lw 2 pt 6 lc rgb '#2ca02c' notitle, $g3 using 1:3 with linespoints lw 2 pt 7 lc rgb '#d62728' notitle, $g4 using 1:3 with linespoints lw 2 pt 8 lc rgb '#9467bd' notitle, $g5 using 1:3 with linespoints lw 2 pt 9 lc rgb '#8c564b' notitle, $g6 using 1:3 with linespoints lw 2 pt 10 lc rgb '#e377c2' notitle, $g7 using 1:3 with linespoints lw 2 pt 11 lc rgb '#7f7f7f' notitle, $g8 using 1:3 with linespoints lw 2 pt 12 lc rgb '#bcbd22' notitle
unset multiplot
unset output
set terminal pngcairo size 1000,420 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'bench_generate.png'
set multiplot layout 1,2 title "generation: one token at context length C (dim 64, 2 layers, random weights)"
set logscale xy
set xtics ("1K" 1024, "4K" 4096, "16K" 16384)
set xrange [716.8:22937.6]
set grid
set xlabel 'context length C'
set bmargin 7
set key at screen 0.5, screen 0.01 center bottom horizontal maxcols 5 Left reverse samplen 2 font ',9'
set ylabel 'tokens per second'
plot $g0 using 1:2 with linespoints lw 2 pt 4 lc rgb '#1f77b4' title "full", $g1 using 1:2 with linespoints lw 2 pt 5 lc rgb '#ff7f0e' title "flash", $g2 using 1:2 with linespoints lw 2 pt 6 lc rgb '#2ca02c' title "local", $g3 using 1:2 with linespoints lw 2 pt 7 lc rgb '#d62728' title "strided", $g4 using 1:2 with linespoints lw 2 pt 8 lc rgb '#9467bd' title "longformer", $g5 using 1:2 with linespoints lw 2 pt 9 lc rgb '#8c564b' title "linear", $g6 using 1:2 with linespoints lw 2 pt 10 lc rgb '#e377c2' title "performer", $g7 using 1:2 with linespoints lw 2 pt 11 lc rgb '#7f7f7f' title "rfa", $g8 using 1:2 with linespoints lw 2 pt 12 lc rgb '#bcbd22' title "synthesizer"
set ylabel 'decoding state (KB)'
unset key
plot $g0 using 1:3 with linespoints lw 2 pt 4 lc rgb '#1f77b4' notitle, $g1 using 1:3 with linespoints lw 2 pt 5 lc rgb '#ff7f0e' notitle, $g2 using 1:3 with linespoints lw 2 pt 6 lc rgb '#2ca02c' notitle, $g3 using 1:3 with linespoints lw 2 pt 7 lc rgb '#d62728' notitle, $g4 using 1:3 with linespoints lw 2 pt 8 lc rgb '#9467bd' notitle, $g5 using 1:3 with linespoints lw 2 pt 9 lc rgb '#8c564b' notitle, $g6 using 1:3 with linespoints lw 2 pt 10 lc rgb '#e377c2' notitle, $g7 using 1:3 with linespoints lw 2 pt 11 lc rgb '#7f7f7f' notitle, $g8 using 1:3 with linespoints lw 2 pt 12 lc rgb '#bcbd22' notitle
unset multiplot
unset output
