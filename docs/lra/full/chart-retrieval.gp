# chart-retrieval.svg and chart-retrieval.png, written by attnzoo; rerun with `gnuplot chart-retrieval.gp` in this folder.
$f0 << EOD
"linear" 4.172 49.9151 5.9845 0
EOD
$f1 << EOD
"sinkhorn" 3.0333 50.2971 7 0
EOD
$f2 << EOD
"mixer" 8.1942 49.7878 4.94586 0
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-retrieval.svg'
set title "Retrieval on this CPU (preset full)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 128), log scale"
set ylabel "test accuracy (%): Retrieval"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [1.68517:14.7496]
set yrange [46.7878:53.2971]
set xtics ("2" 2, "5" 5, "10" 10)
set label 1 "linear" at 4.172,49.9151 center offset char 0,2.08217 front
set label 2 "sinkhorn" at 3.0333,50.2971 center offset char 0,2.31429 front
set label 3 "mixer" at 8.1942,49.7878 center offset char 0,1.84477 front
set arrow from graph 0, first 50 to graph 1, first 50 nohead dt 2 lc rgb '#888888'
set label 4 'chance (majority class)' at graph 0.01, first 50 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle

unset output
set terminal pngcairo size 1100,650 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'chart-retrieval.png'
set title "Retrieval on this CPU (preset full)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 128), log scale"
set ylabel "test accuracy (%): Retrieval"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [1.68517:14.7496]
set yrange [46.7878:53.2971]
set xtics ("2" 2, "5" 5, "10" 10)
set label 1 "linear" at 4.172,49.9151 center offset char 0,2.08217 front
set label 2 "sinkhorn" at 3.0333,50.2971 center offset char 0,2.31429 front
set label 3 "mixer" at 8.1942,49.7878 center offset char 0,1.84477 front
set arrow from graph 0, first 50 to graph 1, first 50 nohead dt 2 lc rgb '#888888'
set label 4 'chance (majority class)' at graph 0.01, first 50 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle

unset output
