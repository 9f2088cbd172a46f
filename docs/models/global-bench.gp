# global-bench.svg and global-bench.png, written by attnzoo; rerun with `gnuplot global-bench.gp` in this folder.
$s0 << EOD
1024 19.715 64.5
4096 7.8481 218
8192 3.2626 422.7
EOD
$s1 << EOD
1024 8.5505 259.7
4096 0.8044 3302.4
8192 0.2169 12735.5
EOD
$s3 << EOD
1024 5.9009 228.7
2048 1.4858 830.8
4096 0.5015 3187.4
EOD

set terminal svg size 640,360 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'global-bench.svg'
set multiplot layout 1,2 title "global: one training step against sequence length N"
set logscale xy 2
set xtics ("1K" 1024, "2K" 2048, "4K" 4096, "8K" 8192)
set xrange [800:10000]
set logscale y 10
set grid
set xlabel 'sequence length N'
set bmargin 7
set key at screen 0.5, screen 0.01 center bottom horizontal maxcols 2 Left reverse samplen 2 font ',9'
set ylabel 'steps per second'
plot $s0 using 1:2 with linespoints lw 2 pt 7 lc rgb '#d62728' title "global (bench/variants.sh)", $s1 using 1:2 with linespoints lw 1.5 pt 6 dt 2 lc rgb '#555555' title "full (bench/variants.sh)", $s3 using 1:2 with linespoints lw 1.5 pt 4 dt 3 lc rgb '#aaaaaa' title "full (lra mini bench)"
set ylabel 'peak memory (MB)'
unset key
plot $s0 using 1:3 with linespoints lw 2 pt 7 lc rgb '#d62728' notitle, $s1 using 1:3 with linespoints lw 1.5 pt 6 dt 2 lc rgb '#555555' notitle, $s3 using 1:3 with linespoints lw 1.5 pt 4 dt 3 lc rgb '#aaaaaa' notitle
unset multiplot
unset output
set terminal pngcairo size 640,360 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'global-bench.png'
set multiplot layout 1,2 title "global: one training step against sequence length N"
set logscale xy 2
set xtics ("1K" 1024, "2K" 2048, "4K" 4096, "8K" 8192)
set xrange [800:10000]
set logscale y 10
set grid
set xlabel 'sequence length N'
set bmargin 7
set key at screen 0.5, screen 0.01 center bottom horizontal maxcols 2 Left reverse samplen 2 font ',9'
set ylabel 'steps per second'
plot $s0 using 1:2 with linespoints lw 2 pt 7 lc rgb '#d62728' title "global (bench/variants.sh)", $s1 using 1:2 with linespoints lw 1.5 pt 6 dt 2 lc rgb '#555555' title "full (bench/variants.sh)", $s3 using 1:2 with linespoints lw 1.5 pt 4 dt 3 lc rgb '#aaaaaa' title "full (lra mini bench)"
set ylabel 'peak memory (MB)'
unset key
plot $s0 using 1:3 with linespoints lw 2 pt 7 lc rgb '#d62728' notitle, $s1 using 1:3 with linespoints lw 1.5 pt 6 dt 2 lc rgb '#555555' notitle, $s3 using 1:3 with linespoints lw 1.5 pt 4 dt 3 lc rgb '#aaaaaa' notitle
unset multiplot
unset output
